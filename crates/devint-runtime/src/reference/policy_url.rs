//! [`PolicyUrl`]: a gateway or proxy URL a policy routes traffic to, checked once by a real
//! URL parser and normalised, before devint ever writes it into a tool's settings file.
//!
//! Owns the one rule for such a URL, used at `serve` (`--gateway-url`,
//! `AA_DEVINT_GATEWAY_URL`) and at policy profile load: at most [`PolicyUrl::MAX_LEN`]
//! bytes, no whitespace or control character, an absolute `http` or `https` URL with a
//! host, no user-info (a credential in a settings file other users may read), no fragment,
//! nothing credential-shaped in it; kept as `url`'s serialisation (scheme and host
//! lowercased, default port dropped, path normalised). It must never echo the text it
//! refused in an error: a refused URL may hold a password.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::credential::text_looks_like_credential;

/// A checked, normalised `http`/`https` URL a policy routes traffic to.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PolicyUrl(String);

/// Why a URL was refused. The message never contains the refused text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyUrlError {
    /// Longer than [`PolicyUrl::MAX_LEN`].
    #[error("is {len} bytes long; a URL devint writes is at most {max} bytes")]
    TooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Empty.
    #[error("is empty; give an absolute http:// or https:// URL, e.g. http://127.0.0.1:8787")]
    Empty,
    /// Whitespace or a control character (a URL parser would silently drop or trim them).
    #[error("contains whitespace or a control character; a URL has none — check for a stray space or line break")]
    Whitespace,
    /// The URL parser refused it.
    #[error(
        "is not a URL ({0}); give an absolute http:// or https:// URL, e.g. http://127.0.0.1:8787"
    )]
    NotAUrl(url::ParseError),
    /// A scheme other than http or https.
    #[error("does not use http or https; devint routes traffic only to http:// or https:// URLs")]
    Scheme,
    /// User-info (`user:password@`) before the host.
    #[error("carries credentials (user-info before the host); devint writes this URL into settings files other users may read and never writes a credential — give the URL without `user:password@` and configure the credential in the gateway or the tool's own key setting")]
    Credentials,
    /// A fragment (`#…`).
    #[error("has a fragment (#…); a base URL has none — remove it")]
    Fragment,
    /// Something credential-shaped in the path or query.
    #[error("holds something that looks like a credential (a key or token in its path or query); devint never writes a credential into a settings file — remove it and configure the credential in the gateway")]
    CredentialShaped,
}

impl PolicyUrl {
    /// The longest URL accepted, in bytes.
    pub const MAX_LEN: usize = 2048;

    /// Checks and normalises `text` (see the module doc). This is the one way to make a
    /// [`PolicyUrl`]: the `serve` command calls it for `--gateway-url`, a policy profile's
    /// `gateway_base_url` and `proxy_url` are read through it.
    pub fn parse(text: &str) -> Result<PolicyUrl, PolicyUrlError> {
        if text.len() > Self::MAX_LEN {
            return Err(PolicyUrlError::TooLong {
                len: text.len(),
                max: Self::MAX_LEN,
            });
        }
        if text.is_empty() {
            return Err(PolicyUrlError::Empty);
        }
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(PolicyUrlError::Whitespace);
        }
        let url = url::Url::parse(text).map_err(PolicyUrlError::NotAUrl)?;
        // User-info first: whatever else is wrong, a password is never kept or echoed.
        if !url.username().is_empty() || url.password().is_some() {
            return Err(PolicyUrlError::Credentials);
        }
        if !matches!(url.scheme(), "http" | "https") {
            return Err(PolicyUrlError::Scheme);
        }
        // `http`/`https` are special schemes: the parser itself refuses one without a host
        // (`http://` is `EmptyHost`), so no host check of ours is needed here.
        if url.fragment().is_some() {
            return Err(PolicyUrlError::Fragment);
        }
        if text_looks_like_credential(url.as_str()) {
            return Err(PolicyUrlError::CredentialShaped);
        }
        // The parser gives a bare host the root path (`http://gw` → `http://gw/`); the
        // canonical form drops it again, so a gateway written the usual way keeps its text
        // (and a built-in profile its digest) and no client sees a doubled slash.
        let bare = url.path() == "/" && url.query().is_none();
        let mut kept: String = url.into();
        if bare {
            kept.pop();
        }
        Ok(PolicyUrl(kept))
    }

    /// The normalised URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether two texts name the same URL once normalised (`HTTP://gw:80/` and `http://gw`),
    /// so a value written before devint normalised URLs is not mistaken for a changed one.
    /// Texts that do not parse are equal only when identical.
    pub fn same(a: &str, b: &str) -> bool {
        a == b || matches!((PolicyUrl::parse(a), PolicyUrl::parse(b)), (Ok(x), Ok(y)) if x == y)
    }
}

impl fmt::Display for PolicyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// As the string it holds: a built-in profile's digest is over its `Debug` form, so a
/// checked URL digests exactly as the same text did before it was typed.
impl fmt::Debug for PolicyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl std::str::FromStr for PolicyUrl {
    type Err = PolicyUrlError;

    fn from_str(text: &str) -> Result<PolicyUrl, PolicyUrlError> {
        PolicyUrl::parse(text)
    }
}

impl Serialize for PolicyUrl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for PolicyUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PolicyUrl, D::Error> {
        let text = String::deserialize(d)?;
        PolicyUrl::parse(&text).map_err(|e| serde::de::Error::custom(format!("the URL {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gateway_urls_are_normalised() {
        for (given, kept) in [
            (
                "http://127.0.0.1:8787/anthropic",
                "http://127.0.0.1:8787/anthropic",
            ),
            ("HTTPS://GW.Example.COM:443/v1", "https://gw.example.com/v1"),
            ("http://gw.example", "http://gw.example"),
            ("http://gw.example/", "http://gw.example"),
            ("http://gw.example/?a=1", "http://gw.example/?a=1"),
            ("http://gw.example/v1/", "http://gw.example/v1/"),
            ("http://gw.example/a/../b/./c", "http://gw.example/b/c"),
            ("http://[::1]:8787/x", "http://[::1]:8787/x"),
            (
                "https://my-org.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21",
                "https://my-org.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-10-21",
            ),
        ] {
            assert_eq!(PolicyUrl::parse(given).unwrap().as_str(), kept, "{given}");
        }
    }

    #[test]
    fn each_refusal_is_named_and_never_echoes_the_url() {
        type Expect = fn(&PolicyUrlError) -> bool;
        let cases: [(&str, Expect); 10] = [
            ("http://:8080/", |e| matches!(e, PolicyUrlError::NotAUrl(_))),
            ("not a url", |e| matches!(e, PolicyUrlError::Whitespace)),
            ("notaurl", |e| matches!(e, PolicyUrlError::NotAUrl(_))),
            ("", |e| matches!(e, PolicyUrlError::Empty)),
            ("ftp://gw.example/", |e| matches!(e, PolicyUrlError::Scheme)),
            ("https://user:hunter2secret@gw.example", |e| {
                matches!(e, PolicyUrlError::Credentials)
            }),
            ("https://hunter2secret@gw.example", |e| {
                matches!(e, PolicyUrlError::Credentials)
            }),
            ("http://gw.example/#top", |e| {
                matches!(e, PolicyUrlError::Fragment)
            }),
            ("http://gw.example/\nx", |e| {
                matches!(e, PolicyUrlError::Whitespace)
            }),
            (
                "https://gw.example/v1?key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
                |e| matches!(e, PolicyUrlError::CredentialShaped),
            ),
        ];
        for (given, expected) in cases {
            let err = PolicyUrl::parse(given).unwrap_err();
            assert!(expected(&err), "{given:?}: {err:?}");
            let said = err.to_string();
            assert!(!said.contains("hunter2"), "{said}");
            assert!(!said.contains("sk-ant"), "{said}");
            assert!(given.is_empty() || !said.contains(given), "{said}");
        }
        let long = format!("http://gw.example/{}", "a".repeat(PolicyUrl::MAX_LEN));
        assert!(matches!(
            PolicyUrl::parse(&long),
            Err(PolicyUrlError::TooLong { .. })
        ));
    }

    #[test]
    fn the_same_url_written_two_ways_is_the_same() {
        assert!(PolicyUrl::same(
            "http://127.0.0.1:9999",
            "http://127.0.0.1:9999/"
        ));
        assert!(PolicyUrl::same(
            "HTTP://127.0.0.1:9999",
            "http://127.0.0.1:9999"
        ));
        assert!(PolicyUrl::same("HTTP://GW:80/a/../b", "http://gw/b"));
        assert!(!PolicyUrl::same("http://gw/a", "http://gw/b"));
        assert!(!PolicyUrl::same("http://gw:8080/", "http://gw"));
        assert!(PolicyUrl::same("not a url", "not a url"));
        assert!(!PolicyUrl::same("not a url", "not  a url"));
    }

    #[test]
    fn a_profile_document_reads_urls_through_the_parser() {
        #[derive(Debug, Deserialize)]
        struct Doc {
            url: PolicyUrl,
        }
        let ok: Doc = toml::from_str("url = \"HTTP://GW.example:80/x\"\n").unwrap();
        assert_eq!(ok.url.as_str(), "http://gw.example/x");
        let err = toml::from_str::<Doc>("url = \"https://u:hunter2secret@gw\"\n").unwrap_err();
        assert!(err.message().contains("carries credentials"), "{err}");
        assert!(!err.message().contains("hunter2"), "{err}");
    }
}
