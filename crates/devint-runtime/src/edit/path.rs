//! [`KeyPath`]: the dotted address of one settings key, e.g. `env.ANTHROPIC_BASE_URL`.
//!
//! Owns parsing and display of key paths; it must never guess at a format's quoting rules
//! beyond the one documented here.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::EditError;

/// The address of one key inside a settings document: object/table names from the root.
///
/// Displayed dotted (`env.ANTHROPIC_BASE_URL`); a segment that is empty or holds anything
/// other than ASCII letters, digits, `_` or `-` is displayed in double quotes with JSON
/// escapes (`mcp."a.b"`). [`FromStr`] accepts the same syntax.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "Vec<String>", try_from = "Vec<String>")]
pub struct KeyPath(Vec<String>);

impl From<KeyPath> for Vec<String> {
    fn from(path: KeyPath) -> Self {
        path.0
    }
}

impl TryFrom<Vec<String>> for KeyPath {
    type Error = EditError;

    // A receipt is read back from disk: an empty path must not get past here.
    fn try_from(segments: Vec<String>) -> Result<Self, Self::Error> {
        KeyPath::new(segments)
    }
}

impl KeyPath {
    /// A key path from its segments; at least one segment is required.
    pub fn new<I, S>(segments: I) -> Result<Self, EditError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let segments: Vec<String> = segments.into_iter().map(Into::into).collect();
        if segments.is_empty() {
            return Err(EditError::EmptyKeyPath);
        }
        Ok(Self(segments))
    }

    /// The segments, root first.
    pub fn segments(&self) -> &[String] {
        &self.0
    }

    /// The last segment: the key's own name.
    pub fn leaf(&self) -> &str {
        self.0.last().map(String::as_str).unwrap_or_default()
    }

    /// The path of the containing object, or `None` for a top-level key.
    pub fn parent(&self) -> Option<KeyPath> {
        (self.0.len() > 1).then(|| KeyPath(self.0[..self.0.len() - 1].to_vec()))
    }

    /// This path extended by one segment.
    pub fn child(&self, segment: impl Into<String>) -> KeyPath {
        let mut segments = self.0.clone();
        segments.push(segment.into());
        KeyPath(segments)
    }

    /// Whether `self` is `other` or lies inside it.
    pub fn starts_with(&self, other: &KeyPath) -> bool {
        self.0.starts_with(&other.0)
    }
}

fn is_bare(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            if is_bare(segment) {
                f.write_str(segment)?;
            } else {
                let quoted = serde_json::to_string(segment).map_err(|_| fmt::Error)?;
                f.write_str(&quoted)?;
            }
        }
        Ok(())
    }
}

impl FromStr for KeyPath {
    type Err = EditError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || EditError::BadKeyPath { text: s.to_owned() };
        let mut segments = Vec::new();
        let mut rest = s;
        loop {
            let (segment, after) = if rest.starts_with('"') {
                // A quoted segment ends at the first unescaped quote.
                let mut end = None;
                let mut escaped = false;
                for (i, c) in rest.char_indices().skip(1) {
                    match (escaped, c) {
                        (true, _) => escaped = false,
                        (false, '\\') => escaped = true,
                        (false, '"') => {
                            end = Some(i);
                            break;
                        }
                        _ => {}
                    }
                }
                let end = end.ok_or_else(bad)?;
                let segment: String = serde_json::from_str(&rest[..=end]).map_err(|_| bad())?;
                (segment, &rest[end + 1..])
            } else {
                let end = rest.find('.').unwrap_or(rest.len());
                let segment = &rest[..end];
                if !is_bare(segment) {
                    return Err(bad());
                }
                (segment.to_owned(), &rest[end..])
            };
            segments.push(segment);
            if after.is_empty() {
                break;
            }
            rest = after.strip_prefix('.').ok_or_else(bad)?;
        }
        KeyPath::new(segments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_display_round_trips_through_from_str() {
        let path = KeyPath::new(["env", "ANTHROPIC_BASE_URL"]).unwrap();
        assert_eq!(path.to_string(), "env.ANTHROPIC_BASE_URL");
        assert_eq!(path.to_string().parse::<KeyPath>().unwrap(), path);
        let odd = KeyPath::new(["mcp", "a.b", "", "q\"x"]).unwrap();
        assert_eq!(odd.to_string(), r#"mcp."a.b".""."q\"x""#);
        assert_eq!(odd.to_string().parse::<KeyPath>().unwrap(), odd);
    }

    #[test]
    fn a_stored_empty_path_is_rejected_on_load() {
        assert!(serde_json::from_str::<KeyPath>("[]").is_err());
        let path: KeyPath = serde_json::from_str(r#"["env","X"]"#).unwrap();
        assert_eq!(serde_json::to_string(&path).unwrap(), r#"["env","X"]"#);
    }

    #[test]
    fn empty_and_malformed_paths_are_rejected() {
        assert!(KeyPath::new(Vec::<String>::new()).is_err());
        assert!("".parse::<KeyPath>().is_err());
        assert!("a..b".parse::<KeyPath>().is_err());
        assert!("a.\"b".parse::<KeyPath>().is_err());
        assert!("a b".parse::<KeyPath>().is_err());
    }
}
