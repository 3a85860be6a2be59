//! [`Sentence`]: the only way free text reaches the wire.
//!
//! Free-text fields of a view (summaries, reasons, remediation, warnings, evidence detail,
//! display names) are the one place a backend could still leak a value (ARCHITECTURE "Free
//! text"). A `Sentence` is one line, at most [`Sentence::MAX_CHARS`] characters, and is refused
//! when it contains anything credential-shaped. This module owns that check and must never
//! copy refused text anywhere: a [`SentenceRefusal`] says *why*, never *what*.
//!
//! What is refused, and why:
//!
//! | refusal | shape |
//! |---|---|
//! | [`SentenceRefusal::KeyPrefix`] | a vendor key prefix at a word start followed by key material: `sk-`, `sk_live_`, `sk_test_`, `rk_live_`, `AKIA`, `ASIA`, `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`, `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `AIza`, `glpat-`, `hf_`, `npm_` |
//! | [`SentenceRefusal::PemBlock`] | `-----BEGIN`, `-----END`, `PRIVATE KEY-----` |
//! | [`SentenceRefusal::AuthorizationHeader`] | `Bearer <token>`, `Authorization: …` |
//! | [`SentenceRefusal::JwtShaped`] | `eyJ` followed by base64url (a JSON object in base64: a JWT or its header) |
//! | [`SentenceRefusal::UrlUserinfo`] | `scheme://user:secret@host` |
//! | [`SentenceRefusal::CredentialAssignment`] | `password=…`, `token=…`, `api_key:…` and kin |
//! | [`SentenceRefusal::HexRun`] | 32 or more hex digits in a row. **Digests are not free text**: a digest has its own typed field ([`crate::verbs::Digest`]); in a sentence a long hex run is indistinguishable from a hex secret, so it is refused |
//! | [`SentenceRefusal::HighEntropyRun`] | 32 or more characters of `[A-Za-z0-9+/=_-]` mixing letters and digits, with a Shannon entropy of at least 4.0 bits per character and a letter/digit/case switch on at least a quarter of adjacent pairs (base64/base62/base36 key material; words, kebab-case names and paths switch far less) |
//!
//! A bare mention of a prefix (`keys starting with sk- are withheld`) is allowed: the
//! prefix must be followed by key material to count. Paths (`/home/u/.claude/settings.json`),
//! key names (`env.ANTHROPIC_BASE_URL`) and version strings pass.
//!
//! There is deliberately no `From<String>`, `From<&str>`, `FromStr` or `Deserialize`:
//! a view's text field can only be filled through [`Sentence::new`],
//! [`Sentence::or_placeholder`] or [`Sentence::from_static`].

use std::sync::Arc;

/// One line of checked free text for the wire (see the module doc for what is refused).
///
/// There is no conversion from a raw string:
///
/// ```compile_fail,E0277
/// let s: devint::verbs::Sentence = String::from("free text").into();
/// ```
///
/// so a view's text field cannot be filled with one either:
///
/// ```compile_fail,E0308
/// use devint::verbs::{CapabilityName, UnsupportedMechanismView};
/// let v = UnsupportedMechanismView {
///     capability: CapabilityName::Hooks,
///     reason: String::from("whatever the backend had in hand"),
/// };
/// ```
///
/// The checked way:
///
/// ```
/// use devint::verbs::{CapabilityName, Sentence, UnsupportedMechanismView};
/// let (reason, refusal) = Sentence::or_placeholder("hooks need Claude Code 1.0.38 or later");
/// assert!(refusal.is_none());
/// let v = UnsupportedMechanismView { capability: CapabilityName::Hooks, reason };
/// ```
///
/// A sentence that stands in for refused text keeps *why* it was refused
/// ([`Sentence::refusal`]), so whoever sends it (the server, auditing refused text) learns
/// of the refusal from the typed view rather than by searching the encoded frame.
/// Equality, ordering and hashing look at the text alone.
#[derive(Debug, Clone)]
pub struct Sentence {
    text: Text,
    refusal: Option<SentenceRefusal>,
}

/// A sentence's text: written into the program, or checked at run time and shared, so a
/// copy of a view (a memo handing out its remembered answer) copies no text.
#[derive(Clone)]
enum Text {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Static(text) => text,
            Text::Shared(text) => text,
        }
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Sentence {
    fn eq(&self, other: &Sentence) -> bool {
        *self.text == *other.text
    }
}

impl Eq for Sentence {}

impl std::hash::Hash for Sentence {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (*self.text).hash(state);
    }
}

impl PartialOrd for Sentence {
    fn partial_cmp(&self, other: &Sentence) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Sentence {
    fn cmp(&self, other: &Sentence) -> std::cmp::Ordering {
        (*self.text).cmp(&*other.text)
    }
}

/// Why a text was refused as a [`Sentence`]. Carries no copy of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum SentenceRefusal {
    /// The text was empty.
    #[error("free text was empty; leave the field unset instead")]
    Empty,
    /// The text was longer than [`Sentence::MAX_CHARS`] characters.
    #[error("free text was longer than 240 characters; say it in one shorter sentence")]
    TooLong,
    /// The text contained a line break.
    #[error("free text spanned more than one line; write a single line")]
    NotOneLine,
    /// The text contained a control or invisible formatting character.
    #[error("free text contained a control or invisible formatting character; remove it")]
    ControlCharacter,
    /// A vendor key prefix followed by key material.
    #[error("free text contained a vendor key prefix followed by key material; never put a credential in text")]
    KeyPrefix,
    /// A PEM armour line.
    #[error("free text contained a PEM block marker; never put key material in text")]
    PemBlock,
    /// An HTTP authorization header or bearer token.
    #[error("free text contained an authorization header or bearer token; never put a credential in text")]
    AuthorizationHeader,
    /// A JWT or base64-encoded JSON object.
    #[error("free text contained a JWT-shaped token; never put a credential in text")]
    JwtShaped,
    /// A URL carrying `user:secret@`.
    #[error("free text contained a URL with embedded credentials; name the host only")]
    UrlUserinfo,
    /// `password=…`-style assignment of a secret.
    #[error("free text assigned a value to a secret-named key; name the key, never its value")]
    CredentialAssignment,
    /// A run of 32 or more hex digits.
    #[error("free text contained a long hex run; digests belong in their own typed field")]
    HexRun,
    /// A long high-entropy run.
    #[error("free text contained a long high-entropy run that looks like key material")]
    HighEntropyRun,
}

/// The placeholder that replaces text refused for looking like a credential.
pub const CREDENTIAL_PLACEHOLDER: &str = "(withheld: text looked like a credential)";
/// The placeholder that replaces text refused for its shape (empty, too long, several lines,
/// control characters).
pub const SHAPE_PLACEHOLDER: &str = "(withheld: text was not one bounded line)";

impl SentenceRefusal {
    /// Whether the refusal is about credential-shaped content (as opposed to the shape of the
    /// text). Credential refusals are audit-worthy.
    pub const fn is_credential_shaped(self) -> bool {
        !matches!(
            self,
            SentenceRefusal::Empty
                | SentenceRefusal::TooLong
                | SentenceRefusal::NotOneLine
                | SentenceRefusal::ControlCharacter
        )
    }

    /// The fixed placeholder that stands in for a text refused for this reason.
    pub const fn placeholder(self) -> &'static str {
        if self.is_credential_shaped() {
            CREDENTIAL_PLACEHOLDER
        } else {
            SHAPE_PLACEHOLDER
        }
    }

    /// A stable snake_case token naming the reason, for audit events.
    pub const fn token(self) -> &'static str {
        match self {
            SentenceRefusal::Empty => "empty",
            SentenceRefusal::TooLong => "too_long",
            SentenceRefusal::NotOneLine => "not_one_line",
            SentenceRefusal::ControlCharacter => "control_character",
            SentenceRefusal::KeyPrefix => "key_prefix",
            SentenceRefusal::PemBlock => "pem_block",
            SentenceRefusal::AuthorizationHeader => "authorization_header",
            SentenceRefusal::JwtShaped => "jwt_shaped",
            SentenceRefusal::UrlUserinfo => "url_userinfo",
            SentenceRefusal::CredentialAssignment => "credential_assignment",
            SentenceRefusal::HexRun => "hex_run",
            SentenceRefusal::HighEntropyRun => "high_entropy_run",
        }
    }
}

impl Sentence {
    /// The longest sentence, in characters (Unicode scalar values).
    pub const MAX_CHARS: usize = 240;

    /// Check `text` and keep a copy of it if it passes.
    pub fn new(text: &str) -> Result<Sentence, SentenceRefusal> {
        check(text)?;
        Ok(Sentence {
            text: Text::Shared(Arc::from(text)),
            refusal: None,
        })
    }

    /// Like [`Sentence::new`], but the empty text is `None` (an unset optional field).
    pub fn optional(text: &str) -> Result<Option<Sentence>, SentenceRefusal> {
        if text.is_empty() {
            Ok(None)
        } else {
            Sentence::new(text).map(Some)
        }
    }

    /// Check `text`; a refused text becomes the fixed placeholder for its reason, and the
    /// reason is returned so that the caller can emit an audit event. The refused text is
    /// not kept.
    pub fn or_placeholder(text: &str) -> (Sentence, Option<SentenceRefusal>) {
        match Sentence::new(text) {
            Ok(s) => (s, None),
            Err(refusal) => (
                Sentence {
                    text: Text::Static(refusal.placeholder()),
                    refusal: Some(refusal),
                },
                Some(refusal),
            ),
        }
    }

    /// A sentence written into the program. Checked in debug builds and tests (a failing
    /// literal panics there); release builds trust the literal.
    pub fn from_static(text: &'static str) -> Sentence {
        debug_assert!(
            check(text).is_ok(),
            "static sentence refused: {:?}",
            check(text)
        );
        Sentence {
            text: Text::Static(text),
            refusal: None,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Why the text this sentence stands in for was refused, when it is the placeholder
    /// [`Sentence::or_placeholder`] put in its place; `None` for a sentence that passed.
    pub fn refusal(&self) -> Option<SentenceRefusal> {
        self.refusal
    }
}

/// The serde newtype-struct name under which a placeholder [`Sentence`] serialises. Every
/// serialiser that ignores newtype names (`serde_json` among them) writes the bare
/// placeholder text; a walker over a view (the server's refused-sentence audit,
/// `session::sentences`) recognises the name and counts a refusal.
pub(crate) const REFUSED_SENTENCE: &str = "devint::RefusedSentence";

impl std::fmt::Display for Sentence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl AsRef<str> for Sentence {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl serde::Serialize for Sentence {
    /// The text; a placeholder is wrapped in a newtype (`REFUSED_SENTENCE`), which
    /// `serde_json` and kin write as the bare text.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.refusal {
            None => serializer.serialize_str(&self.text),
            Some(_) => serializer.serialize_newtype_struct(REFUSED_SENTENCE, &*self.text),
        }
    }
}

/// The whole check: shape first, then credential shapes.
pub(crate) fn check(text: &str) -> Result<(), SentenceRefusal> {
    check_shape(text)?;
    check_credential_shapes(text)
}

fn check_shape(text: &str) -> Result<(), SentenceRefusal> {
    if text.is_empty() {
        return Err(SentenceRefusal::Empty);
    }
    // Bound the work before walking characters: no character is shorter than one byte.
    if text.len() > Sentence::MAX_CHARS * 4 {
        return Err(SentenceRefusal::TooLong);
    }
    let mut count = 0usize;
    for c in text.chars() {
        count += 1;
        if matches!(
            c,
            '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        ) {
            return Err(SentenceRefusal::NotOneLine);
        }
        if c.is_control() || is_invisible_format(c) {
            return Err(SentenceRefusal::ControlCharacter);
        }
    }
    if count > Sentence::MAX_CHARS {
        return Err(SentenceRefusal::TooLong);
    }
    Ok(())
}

/// Zero-width and bidirectional formatting characters: they make displayed text differ from
/// the bytes (Trojan-source style), so a sentence may not carry them.
pub(crate) fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{061c}' | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}')
}

/// Credential-shape checks over a text of any length (also used for identifier fields).
pub(crate) fn check_credential_shapes(text: &str) -> Result<(), SentenceRefusal> {
    credential_shapes(text, HexRuns::Refused)
}

/// The credential-shape checks for an opaque identifier or digest
/// ([`crate::verbs::OpaqueId`]): every rule of [`check_credential_shapes`] except that a
/// run of hex digits is allowed (hex is how ids and SHA-256 digests are usually written,
/// ours among them) up to `hex_run_limit` digits (`None`: any run) and a hex run is never
/// weighed for entropy (hex carries at most 4 bits per character, so a random hex id would
/// otherwise trip the threshold by chance).
pub(crate) fn check_id_credential_shapes(
    text: &str,
    hex_run_limit: Option<usize>,
) -> Result<(), SentenceRefusal> {
    credential_shapes(
        text,
        match hex_run_limit {
            Some(limit) => HexRuns::RefusedFrom(limit),
            None => HexRuns::Allowed,
        },
    )
}

/// Whether a long run of hex digits counts as credential-shaped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HexRuns {
    /// In free text and named identifiers: a run of 32 is indistinguishable from a hex
    /// secret.
    Refused,
    /// In opaque ids: hex is their usual shape, but a run this long is a secret's shape.
    RefusedFrom(usize),
    /// In digests: a hex run is the usual shape of the value.
    Allowed,
}

fn credential_shapes(text: &str, hex: HexRuns) -> Result<(), SentenceRefusal> {
    let b = text.as_bytes();
    if has_pem_marker(b) {
        return Err(SentenceRefusal::PemBlock);
    }
    let words = WordShapes::of(b);
    if words.key_prefix {
        return Err(SentenceRefusal::KeyPrefix);
    }
    if words.authorization {
        return Err(SentenceRefusal::AuthorizationHeader);
    }
    if words.jwt {
        return Err(SentenceRefusal::JwtShaped);
    }
    if has_url_userinfo(b) {
        return Err(SentenceRefusal::UrlUserinfo);
    }
    if has_credential_assignment(b) {
        return Err(SentenceRefusal::CredentialAssignment);
    }
    let hex_limit = match hex {
        HexRuns::Refused => Some(HEX_RUN_MIN),
        HexRuns::RefusedFrom(limit) => Some(limit),
        HexRuns::Allowed => None,
    };
    if hex_limit.is_some_and(|limit| has_hex_run(b, limit)) {
        return Err(SentenceRefusal::HexRun);
    }
    if has_high_entropy_run(b, hex) {
        return Err(SentenceRefusal::HighEntropyRun);
    }
    Ok(())
}

// Every check below runs on every sentence a backend builds and a client reads (a
// `list_tools` answer holds hundreds), so each is a single pass: substrings are found with
// `memchr`'s `memmem` (finders built once), the word-anchored needles are all compared in
// one walk over the word starts, and only where a word's first byte can begin one.

static DASHES: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"-----"));
static SCHEME_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"://"));

/// A PEM armour line (`-----BEGIN`, `-----END`, `PRIVATE KEY-----`): each holds five
/// dashes, so only a text with five dashes is searched for them.
fn has_pem_marker(b: &[u8]) -> bool {
    DASHES.find(b).is_some()
        && [&b"-----BEGIN"[..], b"-----END", b"PRIVATE KEY-----"]
            .iter()
            .any(|needle| memchr::memmem::find(b, needle).is_some())
}

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

fn is_upper_or_digit(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}

/// Positions where a word starts: the first byte, and each byte after one that is not an
/// ASCII alphanumeric.
fn word_start_positions(hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    (0..hay.len()).filter(move |&i| i == 0 || !hay[i - 1].is_ascii_alphanumeric())
}

/// Whether `needle` (not empty) stands in `hay` at `at`.
fn starts_at(hay: &[u8], at: usize, needle: &[u8], ignore_case: bool) -> bool {
    hay.get(at..at + needle.len()).is_some_and(|window| {
        if ignore_case {
            window.eq_ignore_ascii_case(needle)
        } else {
            window == needle
        }
    })
}

fn run_len(b: &[u8], from: usize, class: fn(u8) -> bool) -> usize {
    b[from.min(b.len())..]
        .iter()
        .take_while(|&&c| class(c))
        .count()
}

/// (prefix, minimum length of key material after it, class of that material)
type PrefixRule = (&'static [u8], usize, fn(u8) -> bool);

const KEY_PREFIXES: &[PrefixRule] = &[
    (b"sk-", 8, is_key_char),
    (b"sk_live_", 8, is_key_char),
    (b"sk_test_", 8, is_key_char),
    (b"rk_live_", 8, is_key_char),
    (b"AKIA", 12, is_upper_or_digit),
    (b"ASIA", 12, is_upper_or_digit),
    (b"ghp_", 8, is_key_char),
    (b"gho_", 8, is_key_char),
    (b"ghu_", 8, is_key_char),
    (b"ghs_", 8, is_key_char),
    (b"ghr_", 8, is_key_char),
    (b"github_pat_", 8, is_key_char),
    (b"xoxa-", 8, is_key_char),
    (b"xoxb-", 8, is_key_char),
    (b"xoxp-", 8, is_key_char),
    (b"xoxr-", 8, is_key_char),
    (b"AIza", 16, is_key_char),
    (b"glpat-", 8, is_key_char),
    (b"hf_", 20, is_key_char),
    (b"npm_", 20, is_key_char),
];

/// The bytes a key prefix starts with: a word starting with any other byte is not compared
/// with the prefixes.
const KEY_PREFIX_FIRST_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < KEY_PREFIXES.len() {
        table[KEY_PREFIXES[i].0[0] as usize] = true;
        i += 1;
    }
    table
};

/// What the words of a text start with, found in one walk over its word starts: a key
/// prefix with key material after it, an `Authorization:` header or a `Bearer` token, a
/// JWT (`eyJ…`).
#[derive(Debug, Default, PartialEq, Eq)]
struct WordShapes {
    key_prefix: bool,
    authorization: bool,
    jwt: bool,
}

impl WordShapes {
    fn of(b: &[u8]) -> WordShapes {
        let mut found = WordShapes::default();
        for i in word_start_positions(b) {
            let first = b[i];
            found.key_prefix |= KEY_PREFIX_FIRST_BYTES[usize::from(first)] && key_prefix_at(b, i);
            match first.to_ascii_lowercase() {
                b'a' => found.authorization |= starts_at(b, i, b"authorization:", true),
                b'b' => found.authorization |= bearer_token_at(b, i),
                b'e' => found.jwt |= first == b'e' && jwt_at(b, i),
                _ => {}
            }
        }
        found
    }
}

fn key_prefix_at(b: &[u8], i: usize) -> bool {
    KEY_PREFIXES.iter().any(|&(prefix, min, class)| {
        starts_at(b, i, prefix, false) && run_len(b, i + prefix.len(), class) >= min
    })
}

fn is_bearer_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
}

fn bearer_token_at(b: &[u8], i: usize) -> bool {
    if !starts_at(b, i, b"bearer ", true) {
        return false;
    }
    let start = i + 7;
    let n = run_len(b, start, is_bearer_char);
    let run = &b[start..start + n];
    // "Bearer authentication" is prose; a token has a digit, mixed case or a symbol.
    n >= 8
        && (run.iter().any(u8::is_ascii_digit)
            || (run.iter().any(u8::is_ascii_uppercase) && run.iter().any(u8::is_ascii_lowercase))
            || run.iter().any(|c| !c.is_ascii_alphanumeric()))
}

fn jwt_at(b: &[u8], i: usize) -> bool {
    starts_at(b, i, b"eyJ", false) && run_len(b, i + 3, is_key_char) >= 10
}

fn has_url_userinfo(b: &[u8]) -> bool {
    SCHEME_END.find_iter(b).any(|i| {
        let rest = &b[i + 3..];
        let end = rest
            .iter()
            .position(|&c| matches!(c, b'/' | b' ' | b'?' | b'#'))
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        authority
            .iter()
            .position(|&c| c == b'@')
            .is_some_and(|at| authority[..at].contains(&b':'))
    })
}

const SECRET_NAMES: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"secret",
    b"token",
    b"api_key",
    b"apikey",
    b"api-key",
    b"access_key",
    b"private_key",
];

fn has_credential_assignment(b: &[u8]) -> bool {
    // What makes an assignment is the `=` or `:` after a secret's name, so only those
    // (rare) bytes are looked at. Unlike key prefixes, the name may end a longer key
    // (`GITHUB_TOKEN=`): any name ending right before the sign counts.
    memchr::memchr2_iter(b'=', b':', b).any(|sign| {
        let named = SECRET_NAMES.iter().any(|name| {
            sign >= name.len() && b[sign - name.len()..sign].eq_ignore_ascii_case(name)
        });
        if !named {
            return false;
        }
        let mut j = sign + 1;
        if matches!(b.get(j), Some(b'"') | Some(b'\'')) {
            j += 1;
        }
        // A colon followed by a space is prose ("token: expired"); a mask (`<…>`, `*`) is
        // not a value.
        matches!(b.get(j), Some(&c) if !c.is_ascii_whitespace() && c != b'<' && c != b'*' && c != b'"' && c != b'\'')
    })
}

/// The shortest hex run refused in free text.
const HEX_RUN_MIN: usize = 32;

fn has_hex_run(b: &[u8], min: usize) -> bool {
    let mut run = 0;
    for &c in b {
        if c.is_ascii_hexdigit() {
            run += 1;
            if run >= min {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

fn is_entropy_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-')
}

/// The smallest run length examined for entropy.
const ENTROPY_MIN_RUN: usize = 32;
/// Bits per character at or above which a run may be key material.
const ENTROPY_THRESHOLD: f64 = 4.0;
/// Share of adjacent alphanumeric pairs that switch class (lower/upper/digit) at or above
/// which a run may be key material. Random base62/base64 switches on about 60% of pairs,
/// random base36 on 40%; words, kebab-case names and paths on well under 20%.
const CLASS_SWITCH_THRESHOLD: f64 = 0.25;

fn has_high_entropy_run(b: &[u8], hex: HexRuns) -> bool {
    b.split(|&c| !is_entropy_char(c))
        .filter(|run| run.len() >= ENTROPY_MIN_RUN)
        .filter(|run| hex == HexRuns::Refused || !run.iter().all(u8::is_ascii_hexdigit))
        .any(|run| {
            run.iter().any(u8::is_ascii_digit)
                && run.iter().any(u8::is_ascii_alphabetic)
                && shannon_entropy(run) >= ENTROPY_THRESHOLD
                && class_switch_ratio(run) >= CLASS_SWITCH_THRESHOLD
        })
}

fn char_class(c: u8) -> Option<u8> {
    match c {
        b'a'..=b'z' => Some(0),
        b'A'..=b'Z' => Some(1),
        b'0'..=b'9' => Some(2),
        _ => None,
    }
}

fn class_switch_ratio(run: &[u8]) -> f64 {
    let (mut pairs, mut switches) = (0u32, 0u32);
    for w in run.windows(2) {
        if let (Some(a), Some(b)) = (char_class(w[0]), char_class(w[1])) {
            pairs += 1;
            switches += u32::from(a != b);
        }
    }
    if pairs == 0 {
        0.0
    } else {
        f64::from(switches) / f64::from(pairs)
    }
}

fn shannon_entropy(run: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in run {
        counts[c as usize] += 1;
    }
    let n = run.len() as f64;
    counts
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
#[path = "sentence_oracle.rs"]
mod oracle;

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> SentenceRefusal {
        match Sentence::new(text) {
            Ok(_) => panic!("accepted: {text}"),
            Err(r) => r,
        }
    }

    #[test]
    fn ordinary_operational_sentences_pass() {
        for text in [
            "Writes the managed settings file for Claude Code.",
            "Sets env.ANTHROPIC_BASE_URL to the local gateway address.",
            "Edits /home/u/.claude/settings.json in place, keeping comments.",
            "~/.codex/config.toml: model_providers.aa.base_url is ours",
            "Claude Code 2.0.14 is compatible (requires >= 1.0.0).",
            "No gateway probe is configured, so gateway_protected cannot be claimed.",
            "keys starting with sk- are withheld from receipts",
            "Bearer authentication is configured by the gateway, not by this plan.",
            "token: expired; enrol again with `devint enrol`",
            "the task-runner and disk-based cache were left untouched",
            "Run `devint verify claude-code` after restarting the IDE.",
            "Copilot's hooks are unsupported before version 1.300.0.",
            "hooks.PreToolUse[0].command points at the aa hook binary",
            "ssh://git@github.com/org/repo is reachable",
            "request 123e4567-e89b-12d3-a456-426614174000 was recorded",
            "/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js is the entry point",
            "MCP server aa-gateway registered under mcpServers.aa-gateway (project scope).",
            "Le fichier de configuration a été modifié — rien d'autre.",
            "password=<redacted> was not written",
            "API_TOKEN is listed as residual because its value was withheld",
        ] {
            assert_eq!(
                Sentence::new(text).map(|s| s.as_str().to_owned()),
                Ok(text.to_owned())
            );
        }
    }

    #[test]
    fn vendor_key_material_is_refused() {
        for text in [
            "key sk-ant-api03-abcdefghijklmnop was found",
            "sk-proj-AbCdEf0123456789",
            "use sk_live_51HxYzAbCdEfGhIj for billing",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            "AKIAIOSFODNN7EXAMPLE",
            "role creds ASIAY34FZKBOKMUTVV7A expired",
            "ghp_1234567890abcdefghijABCDEFGHIJ123456",
            "gho_16C7e42F292c6912E7710c838347Ae178B4a",
            "github_pat_11ABCDEFG0123456789_abcdefghijk",
            "slack xoxb-123456789012-abcdefghij",
            "xoxp-1234-5678-abcd",
            "AIzaSyD-1234567890abcdefghijklmnopq",
            "glpat-xxxxxxxxxxxxxxxxxxxx",
            "(sk-abcdefgh12345678)",
        ] {
            assert_eq!(refused(text), SentenceRefusal::KeyPrefix, "{text}");
        }
    }

    #[test]
    fn armour_headers_jwts_and_urls_with_secrets_are_refused() {
        assert_eq!(
            refused("-----BEGIN OPENSSH PRIVATE KEY-----"),
            SentenceRefusal::PemBlock
        );
        assert_eq!(
            refused("ends with -----END CERTIFICATE"),
            SentenceRefusal::PemBlock
        );
        assert_eq!(
            refused("header Bearer abc123def456ghi"),
            SentenceRefusal::AuthorizationHeader
        );
        assert_eq!(
            refused("Authorization: Basic dXNlcjpwYXNz"),
            SentenceRefusal::AuthorizationHeader
        );
        assert_eq!(
            refused("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"),
            SentenceRefusal::JwtShaped
        );
        assert_eq!(
            refused("proxy https://alice:hunter2@proxy.example:8080 set"),
            SentenceRefusal::UrlUserinfo
        );
        assert_eq!(
            refused("password=hunter2"),
            SentenceRefusal::CredentialAssignment
        );
        assert_eq!(
            refused("GITHUB_TOKEN=abc"),
            SentenceRefusal::CredentialAssignment
        );
        assert_eq!(
            refused("api_key:'zzz'"),
            SentenceRefusal::CredentialAssignment
        );
    }

    #[test]
    fn digests_and_hex_secrets_are_not_free_text() {
        let digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(
            refused(&format!("content sha256 {digest}")),
            SentenceRefusal::HexRun
        );
        assert_eq!(
            refused("secret 0123456789abcdef0123456789abcdef"),
            SentenceRefusal::HexRun
        );
        // 31 hex digits is below the bound.
        assert!(Sentence::new("build 0123456789abcdef0123456789abcde ok").is_ok());
    }

    #[test]
    fn long_high_entropy_runs_are_refused() {
        for text in [
            "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "value Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo=",
            "k9Xq2LmP7vR4tY8wZ1aB3cD5eF6gH0jK",
            "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7",
        ] {
            assert_eq!(refused(text), SentenceRefusal::HighEntropyRun, "{text}");
        }
        // Long but low-entropy or digit-free runs are prose-like.
        for text in [
            "ANTHROPIC_BASE_URL_AND_OPENAI_BASE_URL_ARE_MANAGED",
            "model-gateway-base-url-configured-for-claude-code",
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz1",
            "model-gpt-4o-2024-08-06-preview-release-candidate",
            "claude-sonnet-4-5-20250929-with-extended-thinking",
            "ANTHROPIC_DEFAULT_SONNET_MODEL_2025_09_29_LATEST",
            "/Applications/Visual-Studio-Code/Contents/Resources/app2",
            "org-abc123_project-xyz789_team-42-workspace",
        ] {
            assert!(Sentence::new(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn shape_is_one_bounded_line() {
        assert_eq!(refused(""), SentenceRefusal::Empty);
        assert_eq!(refused("two\nlines"), SentenceRefusal::NotOneLine);
        assert_eq!(refused("carriage\rreturn"), SentenceRefusal::NotOneLine);
        assert_eq!(refused("sep\u{2028}arator"), SentenceRefusal::NotOneLine);
        assert_eq!(refused("bell\u{7}"), SentenceRefusal::ControlCharacter);
        assert_eq!(refused("tab\there"), SentenceRefusal::ControlCharacter);
        assert_eq!(refused("rtl\u{202e}txt"), SentenceRefusal::ControlCharacter);
        assert_eq!(
            refused("zero\u{200b}width"),
            SentenceRefusal::ControlCharacter
        );
        let max = "z".repeat(Sentence::MAX_CHARS);
        assert!(Sentence::new(&max).is_ok());
        assert_eq!(refused(&format!("{max}b")), SentenceRefusal::TooLong);
        // Counted in characters, not bytes.
        assert!(Sentence::new(&"é".repeat(Sentence::MAX_CHARS)).is_ok());
        assert_eq!(refused(&"x".repeat(100_000)), SentenceRefusal::TooLong);
    }

    #[test]
    fn refused_text_becomes_a_fixed_placeholder_without_a_copy() {
        let (s, why) = Sentence::or_placeholder("token ghp_1234567890abcdefghij");
        assert_eq!(why, Some(SentenceRefusal::KeyPrefix));
        assert_eq!(s.as_str(), CREDENTIAL_PLACEHOLDER);
        let (s, why) = Sentence::or_placeholder("a\nb");
        assert_eq!(why, Some(SentenceRefusal::NotOneLine));
        assert_eq!(s.as_str(), SHAPE_PLACEHOLDER);
        let (s, why) = Sentence::or_placeholder("fine");
        assert_eq!((s.as_str(), why), ("fine", None));
        // The refusal's message never contains the text.
        let msg = SentenceRefusal::KeyPrefix.to_string();
        assert!(!msg.contains("ghp_1234"));
        // Placeholders are themselves valid sentences.
        assert!(Sentence::new(CREDENTIAL_PLACEHOLDER).is_ok());
        assert!(Sentence::new(SHAPE_PLACEHOLDER).is_ok());
    }

    #[test]
    fn optional_maps_empty_to_none() {
        assert_eq!(Sentence::optional(""), Ok(None));
        assert_eq!(
            Sentence::optional("x").map(|o| o.map(|s| s.as_str().to_owned())),
            Ok(Some("x".to_owned()))
        );
        assert_eq!(Sentence::optional("a\nb"), Err(SentenceRefusal::NotOneLine));
    }

    #[test]
    #[should_panic(expected = "static sentence refused")]
    fn a_static_sentence_is_checked_in_debug() {
        let _ = Sentence::from_static("sk-abcdefghijklmnop");
    }

    #[test]
    fn a_copy_of_a_sentence_shares_its_text() {
        let checked = Sentence::new("hooks need Claude Code 1.0.38 or later").unwrap();
        let copy = checked.clone();
        assert_eq!(copy, checked);
        assert_eq!(
            copy.as_str().as_ptr(),
            checked.as_str().as_ptr(),
            "a memo handing out a remembered view copies no text"
        );
    }
}
