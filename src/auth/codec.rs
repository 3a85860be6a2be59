//! The enrolment book's file format, as pure functions: [`decode_book`] and [`encode_book`].
//!
//! Format: JSON `{"format_version": 1, "records": [...]}`; each record holds the token id,
//! client name, issue and expiry times, scope and the SHA-256 digest of the secret — never
//! the secret. Decoding refuses, with a [`BookDecodeError`] that says what was wrong:
//! oversize input, bytes that are not UTF-8, unparsable or truncated JSON, an unknown
//! `format_version`, unknown fields, a malformed digest or verb, an expiry before the issue
//! time, duplicate token ids or digests. A refused book never becomes an empty book.
//!
//! This module owns the format and nothing else: reading, writing, locking and the file's
//! modes belong to the book file (`devint_net::book::BookFile`). It must never see a
//! secret.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::book::{EnrolmentBook, EnrolmentRecord};
use super::ids::{ClientName, TokenId};
use super::scope::{Scope, ToolScope};
use super::secret::TokenDigest;
use crate::time::UnixSecs;
use crate::verbs::{Verb, VerbSet};

/// The only `format_version` this build reads and writes.
pub const BOOK_FORMAT_VERSION: u32 = 1;
/// A book larger than this is refused as corrupt (10,000 records take about 4 MiB).
pub const BOOK_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Why bytes are not a book this build can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BookDecodeError {
    /// The content is not a valid book (truncated, edited, not JSON, over the size bound).
    #[error("{0}")]
    Corrupt(String),
    /// Written by a newer or older devint.
    #[error("format_version {found}, this devint reads only {BOOK_FORMAT_VERSION}")]
    UnsupportedVersion {
        /// The version found.
        found: u64,
    },
}

/// Decode a book from the bytes of its file.
pub fn decode_book(bytes: &[u8]) -> Result<EnrolmentBook, BookDecodeError> {
    if bytes.len() as u64 > BOOK_MAX_BYTES {
        return Err(BookDecodeError::Corrupt(format!(
            "larger than {BOOK_MAX_BYTES} bytes"
        )));
    }
    let text =
        std::str::from_utf8(bytes).map_err(|_| BookDecodeError::Corrupt("not UTF-8".into()))?;
    #[derive(Deserialize)]
    struct VersionProbe {
        format_version: u64,
    }
    let corrupt = |e: serde_json::Error| BookDecodeError::Corrupt(e.to_string());
    let probe: VersionProbe = serde_json::from_str(text).map_err(corrupt)?;
    if probe.format_version != u64::from(BOOK_FORMAT_VERSION) {
        return Err(BookDecodeError::UnsupportedVersion {
            found: probe.format_version,
        });
    }
    let model: FileModel = serde_json::from_str(text).map_err(corrupt)?;
    let mut book = EnrolmentBook::new();
    for (i, r) in model.records.into_iter().enumerate() {
        let record = r
            .into_record()
            .map_err(|d| BookDecodeError::Corrupt(format!("record {i}: {d}")))?;
        book.insert(record).map_err(|_| {
            BookDecodeError::Corrupt(format!("record {i}: duplicate token id or digest"))
        })?;
    }
    Ok(book)
}

/// Encode `book` as the text of its file (canonical: the same book always gives the same
/// bytes), ending with a newline.
pub fn encode_book(book: &EnrolmentBook) -> String {
    let model = FileModel {
        format_version: BOOK_FORMAT_VERSION,
        records: book.list().map(FileRecord::from_record).collect(),
    };
    let mut text = serde_json::to_string_pretty(&model)
        .expect("a book of validated records always serialises");
    text.push('\n');
    text
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileModel {
    format_version: u32,
    records: Vec<FileRecord>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRecord {
    token_id: TokenId,
    client_name: ClientName,
    issued_at: UnixSecs,
    expires_at: UnixSecs,
    scope: FileScope,
    /// SHA-256 of the secret, lowercase hex.
    digest_sha256: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileScope {
    tools: FileTools,
    verbs: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum FileTools {
    All,
    Only(BTreeSet<String>),
}

impl FileRecord {
    fn from_record(r: &EnrolmentRecord) -> FileRecord {
        FileRecord {
            token_id: r.token_id.clone(),
            client_name: r.client_name.clone(),
            issued_at: r.issued_at,
            expires_at: r.expires_at,
            scope: FileScope {
                tools: match &r.scope.tools {
                    ToolScope::All => FileTools::All,
                    ToolScope::Only(set) => FileTools::Only(set.clone()),
                },
                verbs: r.scope.verbs.iter().map(|v| v.token().to_owned()).collect(),
            },
            digest_sha256: r.digest.to_hex(),
        }
    }

    fn into_record(self) -> Result<EnrolmentRecord, String> {
        let digest = TokenDigest::from_hex(&self.digest_sha256)
            .ok_or_else(|| "digest_sha256 is not 64 lowercase hex characters".to_owned())?;
        let mut verbs = VerbSet::EMPTY;
        for v in &self.scope.verbs {
            let verb = Verb::from_token(v).ok_or_else(|| format!("unknown verb {v:?}"))?;
            verbs = verbs.with(verb);
        }
        if self.expires_at < self.issued_at {
            return Err("expires_at is before issued_at".into());
        }
        Ok(EnrolmentRecord {
            token_id: self.token_id,
            client_name: self.client_name,
            issued_at: self.issued_at,
            expires_at: self.expires_at,
            scope: Arc::new(Scope {
                tools: match self.scope.tools {
                    FileTools::All => ToolScope::All,
                    FileTools::Only(set) => ToolScope::Only(set),
                },
                verbs,
            }),
            digest,
        })
    }
}
