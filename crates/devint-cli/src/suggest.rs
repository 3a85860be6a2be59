//! "Did you mean …?": the closest known name to a mistyped one.
//!
//! This module owns the similarity rule (Jaro–Winkler from `strsim`, the measure clap uses
//! for subcommands) so tool ids and profile names are suggested alike. It never suggests a
//! name that is not in the list it was given.

/// How similar a candidate must be to be suggested (clap's own threshold).
const THRESHOLD: f64 = 0.7;

/// The candidate closest to `given`, if any is close enough.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&given, c), c))
        .filter(|(score, _)| *score >= THRESHOLD)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// ` (did you mean `x`?)`, or nothing.
pub fn did_you_mean<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(given, candidates)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_suggested_and_nonsense_is_not() {
        let tools = ["claude-code", "codex", "github-copilot"];
        assert_eq!(closest("claude", tools), Some("claude-code"));
        assert_eq!(closest("Claude_Code", tools), Some("claude-code"));
        assert_eq!(closest("codx", tools), Some("codex"));
        assert_eq!(closest("zzzzzz", tools), None);
    }
}
