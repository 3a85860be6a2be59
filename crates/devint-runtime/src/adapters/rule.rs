//! The tool-neutral deny rules a policy states: what must not happen, in no tool's syntax.
//!
//! Owns the vocabulary ([`RuleKind`], [`DenyRule`]), its one written form (`shell:curl`,
//! `web_fetch`, `read:~/.ssh/**`, `mcp:github/create_issue`, …: [`DenyRule::parse`] and
//! `Display`), and reading Claude Code-style patterns (`Bash(curl:*)`, `WebFetch`) into it
//! ([`DenyRule::from_claude_pattern`]), refusing what has no neutral form with a message
//! that names the accepted forms. Must never know how any tool writes a rule: each
//! descriptor maps the vocabulary to its own syntax ([`super::descriptor::RuleWriting`]),
//! and a rule a tool cannot express is reported, never written in a foreign syntax.
//!
//! The values are strict: a rule's argument is filled into other tools' pattern languages
//! (globs, `Tool(argument)` forms, object keys), so characters that would change a pattern's
//! meaning there — wildcards, shell operators, quotes, brackets, control bytes — are refused
//! here rather than escaped per tool.

use std::fmt;
use std::str::FromStr;

/// One kind of action every agent tool has, whichever tool names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    /// Running a shell command (every shell tool the agent has).
    Shell,
    /// Fetching a web page.
    WebFetch,
    /// Searching the web.
    WebSearch,
    /// Reading a file.
    FileRead,
    /// Writing or editing a file.
    FileWrite,
    /// Calling an MCP server's tools.
    Mcp,
}

impl RuleKind {
    /// Every kind, in the order plans list them.
    pub const ALL: [RuleKind; 6] = [
        RuleKind::Shell,
        RuleKind::WebFetch,
        RuleKind::WebSearch,
        RuleKind::FileRead,
        RuleKind::FileWrite,
        RuleKind::Mcp,
    ];

    /// The word a rule of this kind starts with.
    pub const fn token(self) -> &'static str {
        match self {
            RuleKind::Shell => "shell",
            RuleKind::WebFetch => "web_fetch",
            RuleKind::WebSearch => "web_search",
            RuleKind::FileRead => "read",
            RuleKind::FileWrite => "write",
            RuleKind::Mcp => "mcp",
        }
    }

    /// What the kind covers, for people ("shell commands").
    pub const fn description(self) -> &'static str {
        match self {
            RuleKind::Shell => "shell commands",
            RuleKind::WebFetch => "web fetches",
            RuleKind::WebSearch => "web searches",
            RuleKind::FileRead => "file reads",
            RuleKind::FileWrite => "file writes",
            RuleKind::Mcp => "MCP tool calls",
        }
    }

    /// What narrows a rule of this kind, for people ("a command prefix").
    pub const fn narrowing(self) -> &'static str {
        match self {
            RuleKind::Shell => "a command prefix",
            RuleKind::WebFetch => "a domain",
            RuleKind::WebSearch => "nothing",
            RuleKind::FileRead | RuleKind::FileWrite => "a path",
            RuleKind::Mcp => "one tool",
        }
    }
}

/// One tool-neutral deny rule: a kind, and what narrows it.
///
/// `shell` denies every shell command, `shell:git push` the commands whose first words are
/// `git push`; `web_fetch` / `web_fetch:example.com`; `web_search`; `read` / `read:<path>`
/// and `write` / `write:<path>` (a path or glob: absolute, `~/…`, or relative to the
/// project); `mcp:<server>` (every tool of that MCP server) / `mcp:<server>/<tool>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DenyRule {
    kind: RuleKind,
    /// The MCP server (only for [`RuleKind::Mcp`]).
    server: Option<String>,
    /// What narrows the rule: a command prefix, a domain, a path, an MCP tool.
    narrowed: Option<String>,
}

/// Why a rule was refused; the message names the accepted forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}; {accepted}")]
pub struct RuleError {
    problem: String,
    accepted: &'static str,
}

/// The neutral forms, as the refusal of one names them.
pub const ACCEPTED_RULES: &str = "the accepted deny rules are shell, shell:<command prefix>, web_fetch, web_fetch:<domain>, web_search, read, read:<path>, write, write:<path>, mcp:<server>, mcp:<server>/<tool>";

/// The Claude Code patterns with a neutral form, as the refusal of one names them.
pub const ACCEPTED_CLAUDE_PATTERNS: &str = "the accepted Claude Code patterns are Bash, Bash(<prefix>:*), Bash(<prefix> *), PowerShell(…) likewise, WebFetch, WebFetch(domain:<domain>), WebSearch, Read, Read(<path>), Edit(<path>), Write(<path>), mcp__<server>, mcp__<server>__<tool>; or write the tool-neutral rule in `deny` (shell:<prefix>, web_fetch, read:<path>, …)";

fn refuse(problem: impl Into<String>, accepted: &'static str) -> RuleError {
    RuleError {
        problem: problem.into(),
        accepted,
    }
}

/// A rule's argument is at most this long.
const MAX_ARGUMENT: usize = 256;

impl DenyRule {
    /// Every action of `kind` (for [`RuleKind::Mcp`], use [`DenyRule::mcp`]).
    pub fn every(kind: RuleKind) -> Result<DenyRule, RuleError> {
        if kind == RuleKind::Mcp {
            return Err(refuse(
                "an MCP rule names its server (mcp:<server>)",
                ACCEPTED_RULES,
            ));
        }
        Ok(DenyRule {
            kind,
            server: None,
            narrowed: None,
        })
    }

    /// The actions of `kind` narrowed by `argument` (checked for that kind).
    pub fn narrowed(kind: RuleKind, argument: &str) -> Result<DenyRule, RuleError> {
        let narrowed = match kind {
            RuleKind::Shell => command_prefix(argument)?,
            RuleKind::WebFetch => domain(argument)?,
            RuleKind::FileRead | RuleKind::FileWrite => path(argument)?,
            RuleKind::WebSearch => {
                return Err(refuse(
                    "web_search takes no argument (a search cannot be narrowed)",
                    ACCEPTED_RULES,
                ))
            }
            RuleKind::Mcp => {
                return match argument.split_once('/') {
                    Some((server, tool)) => DenyRule::mcp(server, Some(tool)),
                    None => DenyRule::mcp(argument, None),
                }
            }
        };
        Ok(DenyRule {
            kind,
            server: None,
            narrowed: Some(narrowed),
        })
    }

    /// Every tool of the MCP server `server`, or only its `tool`.
    pub fn mcp(server: &str, tool: Option<&str>) -> Result<DenyRule, RuleError> {
        Ok(DenyRule {
            kind: RuleKind::Mcp,
            server: Some(mcp_name(server, "server")?),
            narrowed: tool.map(|t| mcp_name(t, "tool")).transpose()?,
        })
    }

    /// Reads one rule in its neutral form (`shell:curl`, `web_fetch`, …).
    pub fn parse(text: &str) -> Result<DenyRule, RuleError> {
        let (word, argument) = match text.split_once(':') {
            Some((word, argument)) => (word, Some(argument)),
            None => (text, None),
        };
        let Some(kind) = RuleKind::ALL.into_iter().find(|k| k.token() == word) else {
            return Err(refuse(
                format!("`{}` is not a deny rule", shown(text)),
                ACCEPTED_RULES,
            ));
        };
        match argument {
            None => DenyRule::every(kind),
            Some(argument) => DenyRule::narrowed(kind, argument),
        }
    }

    /// Reads one Claude Code permission pattern (`Bash(curl:*)`, `WebFetch`,
    /// `Read(~/.ssh/**)`, `mcp__github`, …) into the neutral rule it means, or refuses it.
    pub fn from_claude_pattern(pattern: &str) -> Result<DenyRule, RuleError> {
        let accepted = ACCEPTED_CLAUDE_PATTERNS;
        if let Some(rest) = pattern.strip_prefix("mcp__") {
            let (server, tool) = match rest.split_once("__") {
                Some((server, "*")) => (server, None),
                Some((server, tool)) => (server, Some(tool)),
                None => (rest, None),
            };
            return DenyRule::mcp(server, tool).map_err(|e| refuse(e.problem, accepted));
        }
        let (tool, inner) = match pattern.split_once('(') {
            Some((tool, rest)) => match rest.strip_suffix(')') {
                Some(inner) => (tool, Some(inner)),
                None => {
                    return Err(refuse(
                        format!("`{}` opens a parenthesis it does not close", shown(pattern)),
                        accepted,
                    ))
                }
            },
            None => (pattern, None),
        };
        let kind = match tool {
            "Bash" | "PowerShell" => RuleKind::Shell,
            "WebFetch" => RuleKind::WebFetch,
            "WebSearch" => RuleKind::WebSearch,
            "Read" => RuleKind::FileRead,
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => RuleKind::FileWrite,
            _ => {
                return Err(refuse(
                    format!(
                        "the Claude Code pattern `{}` has no tool-neutral form",
                        shown(pattern)
                    ),
                    accepted,
                ))
            }
        };
        let argument = match inner {
            None | Some("*") => {
                return DenyRule::every(kind).map_err(|e| refuse(e.problem, accepted))
            }
            Some(inner) => inner,
        };
        let narrowed = match kind {
            RuleKind::Shell => argument
                .strip_suffix(":*")
                .or_else(|| argument.strip_suffix(" *"))
                .ok_or_else(|| {
                    refuse(
                        format!(
                            "`{}` matches one exact command; a deny rule names a command prefix (`{tool}(<prefix>:*)`)",
                            shown(pattern)
                        ),
                        accepted,
                    )
                })?,
            RuleKind::WebFetch => argument.strip_prefix("domain:").ok_or_else(|| {
                refuse(
                    format!("`{}` narrows WebFetch by something other than a domain", shown(pattern)),
                    accepted,
                )
            })?,
            RuleKind::FileRead | RuleKind::FileWrite => {
                if let Some(absolute) = argument.strip_prefix("//") {
                    return DenyRule::narrowed(kind, &format!("/{absolute}"))
                        .map_err(|e| refuse(e.problem, accepted));
                }
                if argument.starts_with('/') {
                    return Err(refuse(
                        format!(
                            "`{}` is relative to the settings file's folder, which no other tool shares; name the file absolutely (`//path`), under home (`~/path`) or in the project (`path`)",
                            shown(pattern)
                        ),
                        accepted,
                    ));
                }
                argument
            }
            RuleKind::WebSearch | RuleKind::Mcp => {
                return Err(refuse(
                    format!("`{}` cannot be narrowed", shown(pattern)),
                    accepted,
                ))
            }
        };
        DenyRule::narrowed(kind, narrowed).map_err(|e| refuse(e.problem, accepted))
    }

    /// The kind.
    pub fn kind(&self) -> RuleKind {
        self.kind
    }

    /// Whether something narrows the rule (for an MCP rule: one tool, not the server).
    pub fn is_narrowed(&self) -> bool {
        self.narrowed.is_some()
    }

    /// The value of a template placeholder for this rule: `cmd` (a command prefix),
    /// `cmd_regex` (that prefix as a regular expression matching it literally), `domain`,
    /// `path`, `claude_path` (an absolute path written `//…`, as Claude Code spells one),
    /// `server`, `server_ident` (the server as an identifier), `tool`; `None` when this
    /// rule has no such value.
    pub fn placeholder(&self, name: &str) -> Option<String> {
        let narrowed = self.narrowed.as_deref();
        match (self.kind, name) {
            (RuleKind::Shell, "cmd") | (RuleKind::WebFetch, "domain") => {
                narrowed.map(str::to_owned)
            }
            (RuleKind::Shell, "cmd_regex") => narrowed.map(regex_literal),
            (RuleKind::FileRead | RuleKind::FileWrite, "path") => narrowed.map(str::to_owned),
            (RuleKind::FileRead | RuleKind::FileWrite, "claude_path") => narrowed.map(|p| {
                if p.starts_with('/') {
                    format!("/{p}")
                } else if p.starts_with("~/") || p.starts_with("./") || p.starts_with("**") {
                    p.to_owned()
                } else {
                    format!("./{p}")
                }
            }),
            (RuleKind::Mcp, "server") => self.server.clone(),
            (RuleKind::Mcp, "server_ident") => self.server.as_deref().map(identifier),
            (RuleKind::Mcp, "tool") => narrowed.map(str::to_owned),
            _ => None,
        }
    }
}

impl fmt::Display for DenyRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.token())?;
        match (&self.server, &self.narrowed) {
            (Some(server), Some(tool)) => write!(f, ":{server}/{tool}"),
            (Some(server), None) => write!(f, ":{server}"),
            (None, Some(narrowed)) => write!(f, ":{narrowed}"),
            (None, None) => Ok(()),
        }
    }
}

impl FromStr for DenyRule {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DenyRule::parse(s)
    }
}

impl<'de> serde::Deserialize<'de> for DenyRule {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        DenyRule::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A Claude Code pattern, read into its neutral rule as a policy document is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudePattern(pub DenyRule);

impl<'de> serde::Deserialize<'de> for ClaudePattern {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        DenyRule::from_claude_pattern(&text)
            .map(ClaudePattern)
            .map_err(serde::de::Error::custom)
    }
}

/// `text` as a regular expression that matches it literally: each character a regex reads
/// as syntax (of those a command prefix may hold, `.` and `+`; the rest for safety) escaped.
fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An MCP server's name as the tools that name an MCP tool `<server>_<tool>` identifier
/// spell it: every character other than an ASCII letter, digit or `_` written `_`
/// (`devint-blocked` → `devint_blocked`). Two names differing only there spell alike.
pub fn identifier(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `text` as a refusal quotes it: at most 64 characters, control characters replaced.
fn shown(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(64)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > 64 {
        out.push('…');
    }
    out
}

fn bounded<'a>(argument: &'a str, what: &str) -> Result<&'a str, RuleError> {
    if argument.is_empty() {
        return Err(refuse(format!("the {what} is empty"), ACCEPTED_RULES));
    }
    if argument.len() > MAX_ARGUMENT {
        return Err(refuse(
            format!("the {what} is longer than {MAX_ARGUMENT} bytes"),
            ACCEPTED_RULES,
        ));
    }
    if let Some(c) = argument.chars().find(|c| c.is_control()) {
        return Err(refuse(
            format!("the {what} holds the control character U+{:04X}", c as u32),
            ACCEPTED_RULES,
        ));
    }
    Ok(argument)
}

/// A command prefix: one to eight words, single spaces between, no wildcard, shell
/// operator, quote or bracket (each tool's pattern language would read them differently).
fn command_prefix(argument: &str) -> Result<String, RuleError> {
    let argument = bounded(argument, "command prefix")?;
    let words: Vec<&str> = argument.split(' ').collect();
    if words.len() > 8 || words.iter().any(|w| w.is_empty()) {
        return Err(refuse(
            format!(
                "the command prefix `{}` must be one to eight words with single spaces between them",
                shown(argument)
            ),
            ACCEPTED_RULES,
        ));
    }
    if let Some(c) = argument
        .chars()
        .find(|c| !(c.is_alphanumeric() || " ._/+=,@%-".contains(*c)))
    {
        return Err(refuse(
            format!(
                "the command prefix `{}` holds `{c}`; a prefix is plain words (no wildcard, shell operator, quote, bracket or colon)",
                shown(argument)
            ),
            ACCEPTED_RULES,
        ));
    }
    Ok(argument.to_owned())
}

/// A domain: dot-separated labels of letters, digits and hyphens, lowercased.
fn domain(argument: &str) -> Result<String, RuleError> {
    let argument = bounded(argument, "domain")?;
    let ok = argument.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    if !ok {
        return Err(refuse(
            format!(
                "`{}` is not a domain (letters, digits, hyphens and dots: example.com)",
                shown(argument)
            ),
            ACCEPTED_RULES,
        ));
    }
    Ok(argument.to_ascii_lowercase())
}

/// A path or glob: absolute, under home (`~/`), or relative to the project; no quotes,
/// brackets, backslashes or `..` segments.
fn path(argument: &str) -> Result<String, RuleError> {
    let argument = bounded(argument, "path")?;
    if let Some(c) = argument.chars().find(|c| "()[]{}\"'`\\$;|&<>".contains(*c)) {
        return Err(refuse(
            format!(
                "the path `{}` holds `{c}`; a path is plain segments with * and ** as wildcards",
                shown(argument)
            ),
            ACCEPTED_RULES,
        ));
    }
    if argument.split('/').any(|segment| segment == "..") {
        return Err(refuse(
            format!(
                "the path `{}` climbs out with `..`; name the folder itself",
                shown(argument)
            ),
            ACCEPTED_RULES,
        ));
    }
    if argument.starts_with('~') && !argument.starts_with("~/") {
        return Err(refuse(
            format!(
                "the path `{}` names another user's home; write ~/… for your own",
                shown(argument)
            ),
            ACCEPTED_RULES,
        ));
    }
    Ok(argument.to_owned())
}

/// An MCP server or tool name: letters, digits, `_` and `-`.
fn mcp_name(name: &str, what: &str) -> Result<String, RuleError> {
    let name = bounded(name, &format!("MCP {what} name"))?;
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(refuse(
            format!(
                "the MCP {what} name `{}` may hold only letters, digits, `_` and `-`",
                shown(name)
            ),
            ACCEPTED_RULES,
        ));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> DenyRule {
        DenyRule::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn every_neutral_form_reads_back_as_written() {
        for text in [
            "shell",
            "shell:curl",
            "shell:git push",
            "web_fetch",
            "web_fetch:example.com",
            "web_search",
            "read",
            "read:~/.ssh/**",
            "read:/etc/shadow",
            "write:**/.env",
            "write",
            "mcp:github",
            "mcp:github/create_issue",
        ] {
            assert_eq!(rule(text).to_string(), text);
        }
        assert_eq!(
            rule("web_fetch:Example.COM").to_string(),
            "web_fetch:example.com"
        );
    }

    #[test]
    fn claude_patterns_read_into_the_vocabulary() {
        for (pattern, neutral) in [
            ("Bash", "shell"),
            ("Bash(*)", "shell"),
            ("Bash(curl:*)", "shell:curl"),
            ("Bash(curl *)", "shell:curl"),
            ("Bash(git push:*)", "shell:git push"),
            ("PowerShell(Invoke-WebRequest:*)", "shell:Invoke-WebRequest"),
            ("WebFetch", "web_fetch"),
            ("WebFetch(domain:example.com)", "web_fetch:example.com"),
            ("WebSearch", "web_search"),
            ("Read(~/.ssh/**)", "read:~/.ssh/**"),
            ("Read(//etc/shadow)", "read:/etc/shadow"),
            ("Read(./.env)", "read:./.env"),
            ("Edit(**/.env)", "write:**/.env"),
            ("Write", "write"),
            ("mcp__github", "mcp:github"),
            ("mcp__github__*", "mcp:github"),
            ("mcp__github__create_issue", "mcp:github/create_issue"),
        ] {
            let read =
                DenyRule::from_claude_pattern(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
            assert_eq!(read.to_string(), neutral, "{pattern}");
        }
    }

    #[test]
    fn claude_patterns_without_a_neutral_form_are_refused_naming_the_accepted_forms() {
        for pattern in [
            "WebFetchTool",
            "Task",
            "Bash(npm run test)",
            "Bash(curl",
            "Read(/src/**)",
            "WebFetch(https://example.com)",
            "Bash(rm -rf *:*)",
        ] {
            let e = DenyRule::from_claude_pattern(pattern)
                .unwrap_err()
                .to_string();
            assert!(e.contains("Bash(<prefix>:*)"), "{pattern}: {e}");
        }
    }

    #[test]
    fn arguments_another_tool_would_read_as_syntax_are_refused() {
        for text in [
            "shell:curl *",
            "shell:curl;rm",
            "shell:$(x)",
            "shell:a  b",
            "shell: curl",
            "shell:a:b",
            "shell:one two three four five six seven eight nine",
            "web_fetch:exa mple.com",
            "web_fetch:https://example.com",
            "web_search:cats",
            "read:../up",
            "read:~root/x",
            "read:a\"b",
            "write:a)b",
            "mcp",
            "mcp:git hub",
            "mcp:a/b/c",
            "shell:\u{7}",
            "nope",
            "",
        ] {
            let e = DenyRule::parse(text).unwrap_err().to_string();
            assert!(e.contains("accepted deny rules"), "{text:?}: {e}");
        }
        let long = format!("shell:{}", "a".repeat(MAX_ARGUMENT + 1));
        assert!(DenyRule::parse(&long).is_err());
    }

    #[test]
    fn placeholders_are_the_rules_values_and_absent_otherwise() {
        let r = rule("shell:git push");
        assert_eq!(r.placeholder("cmd").as_deref(), Some("git push"));
        assert_eq!(r.placeholder("domain"), None);
        assert_eq!(rule("shell").placeholder("cmd"), None);
        assert_eq!(
            rule("read:/etc/x").placeholder("claude_path").as_deref(),
            Some("//etc/x")
        );
        assert_eq!(
            rule("read:~/x").placeholder("claude_path").as_deref(),
            Some("~/x")
        );
        assert_eq!(
            rule("read:src/x").placeholder("claude_path").as_deref(),
            Some("./src/x")
        );
        let m = rule("mcp:github/create_issue");
        assert_eq!(m.placeholder("server").as_deref(), Some("github"));
        assert_eq!(
            rule("mcp:my-git_hub")
                .placeholder("server_ident")
                .as_deref(),
            Some("my_git_hub")
        );
        assert_eq!(rule("shell").placeholder("server_ident"), None);
        assert_eq!(
            rule("shell:python3.12 -m pip")
                .placeholder("cmd_regex")
                .as_deref(),
            Some(r"python3\.12 -m pip")
        );
        assert_eq!(
            rule("shell:g++").placeholder("cmd_regex").as_deref(),
            Some(r"g\+\+")
        );
        assert_eq!(m.placeholder("tool").as_deref(), Some("create_issue"));
        assert!(m.is_narrowed());
        assert!(!rule("mcp:github").is_narrowed());
    }
}
