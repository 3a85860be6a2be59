//! `devint enrol` and `devint tokens list|rotate|revoke`: administering the enrolment book.
//!
//! Enrolment is not a DI-API verb (the verb set is closed), so these commands edit the book
//! file directly, as the user who owns it, under its lock ([`BookFile::update`]); a running
//! runtime sees the change on its next request. This module owns the token's one trip to
//! disk (the client's `0600` token file) and must never print a secret unless `--print`
//! was given, nor leave a window without a valid token when rotating (spec §7:
//! issue-new-then-revoke-old).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use devint::auth::{ClientName, EnrolmentRecord, Scope, TokenId, ToolScope};
use devint::time::UnixSecs;
use devint::verbs::{ToolId, Verb, VerbSet};
use devint_net::book::BookFile;
use devint_net::token_file::write_token_file;
use serde_json::{json, Value};

use crate::exit::{CliError, Exit};
use crate::output::{utc, Out, Table};
use crate::plan::parse_tool;

/// `devint enrol`'s arguments.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("tools").required(true).args(["tool", "all_tools"])))]
pub struct EnrolArgs {
    /// The client's name (shown in audit records and `tokens list`).
    #[arg(long)]
    pub client: String,
    /// A tool the token may act on (repeat for more).
    #[arg(long, value_parser = parse_tool)]
    pub tool: Vec<ToolId>,
    /// Every tool, including ones added later.
    #[arg(long)]
    pub all_tools: bool,
    /// `read-only` (list_tools, status, verify, scoped_events), `full` (all nine verbs), or
    /// a comma-separated list of verbs.
    #[arg(long, default_value = "read-only", value_parser = parse_verbs)]
    pub verbs: VerbSet,
    /// How long the token lives (`30d`, `12h`, `90m`, `3600s`).
    #[arg(long, default_value = "30d", value_parser = parse_duration)]
    pub ttl: Duration,
    /// Where to write the token (default: AA_DEVINT_TOKEN_FILE, else devint.token beside
    /// the socket).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Also print the token on stdout (it is a secret: only for piping into a keychain).
    #[arg(long)]
    pub print: bool,
}

/// clap parser for `--verbs`.
pub fn parse_verbs(s: &str) -> Result<VerbSet, String> {
    match s {
        "read-only" | "read_only" => return Ok(VerbSet::read_only()),
        "full" | "full_lifecycle" => return Ok(VerbSet::full_lifecycle()),
        _ => {}
    }
    let mut set = VerbSet::EMPTY;
    for token in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let verb = Verb::from_token(token).ok_or_else(|| {
            let all: Vec<&str> = Verb::ALL.iter().map(|v| v.token()).collect();
            format!(
                "unknown verb; use read-only, full, or a list of: {}",
                all.join(", ")
            )
        })?;
        set = set.with(verb);
    }
    if set.is_empty() {
        return Err("name at least one verb".into());
    }
    Ok(set)
}

/// Parse `30d`, `12h`, `90m`, `45s` (or plain seconds).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| "a duration is a number and a unit: 30d, 12h, 90m, 45s".to_owned())?;
    let secs = match unit {
        "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        "d" => n.saturating_mul(86_400),
        _ => return Err("a duration's unit is s, m, h or d".into()),
    };
    if secs == 0 {
        return Err("a duration must be at least one second".into());
    }
    Ok(Duration::from_secs(secs))
}

fn now() -> UnixSecs {
    UnixSecs::from_system_time(SystemTime::now())
}

fn book_error(e: devint_net::book::BookFileError) -> CliError {
    let exit = match &e {
        devint_net::book::BookFileError::Enrolment(
            devint::auth::EnrolmentError::UnknownTokenId(_),
        ) => Exit::Usage,
        _ => Exit::Internal,
    };
    CliError::new(exit, e.to_string())
}

fn scope_json(scope: &Scope) -> Value {
    json!({
        "tools": match &scope.tools {
            ToolScope::All => json!("all"),
            ToolScope::Only(set) => json!(set),
        },
        "verbs": scope.verbs.iter().map(|v| v.token()).collect::<Vec<_>>(),
    })
}

fn scope_words(scope: &Scope) -> (String, String) {
    let tools = match &scope.tools {
        ToolScope::All => "all tools".to_owned(),
        ToolScope::Only(set) => set.iter().cloned().collect::<Vec<_>>().join(","),
    };
    let verbs = if scope.verbs == VerbSet::full_lifecycle() {
        "full".to_owned()
    } else if scope.verbs == VerbSet::read_only() {
        "read-only".to_owned()
    } else {
        scope
            .verbs
            .iter()
            .map(|v| v.token())
            .collect::<Vec<_>>()
            .join(",")
    };
    (tools, verbs)
}

fn record_json(r: &EnrolmentRecord, now: UnixSecs) -> Value {
    json!({
        "token_id": r.token_id().as_str(),
        "client_name": r.client_name().as_str(),
        "issued_at_unix_secs": r.issued_at(),
        "expires_at_unix_secs": r.expires_at(),
        "expired": r.is_expired(now),
        "scope": scope_json(r.scope()),
    })
}

/// Run `enrol`.
pub fn enrol(
    out: &Out,
    book: &Path,
    args: &EnrolArgs,
    token_file: &Path,
) -> Result<Exit, CliError> {
    let client = ClientName::parse(&args.client).map_err(|e| {
        CliError::usage(format!("--client: {e}")).fix("use a short name such as `vscode` or `cli`")
    })?;
    for tool in &args.tool {
        if devint_runtime::adapters::find(tool.as_str()).is_none() {
            return Err(CliError::usage(format!("no adapter knows the tool {tool}"))
                .fix("`devint tools` lists the tool ids"));
        }
    }
    let scope = Scope {
        tools: if args.all_tools {
            ToolScope::All
        } else {
            ToolScope::only(args.tool.iter().map(|t| t.as_str().to_owned()))
        },
        verbs: args.verbs,
    };
    let issued_at = now();
    let file = BookFile::new(book);
    let (id, secret) = file
        .update(|b| b.issue(client.clone(), scope.clone(), args.ttl, issued_at))
        .map_err(book_error)?;
    if let Err(e) = write_token_file(token_file, &secret) {
        // Never leave a record whose secret nobody holds.
        let _ = file.update(|b| b.revoke(&id).map(|_| ()));
        return Err(CliError::internal(e.to_string()).fix("choose a writable --token-file"));
    }
    let expires_at = issued_at.saturating_add(args.ttl);
    let token = args.print.then(|| secret.expose_secret_hex());
    let (tools, verbs) = scope_words(&scope);
    out.result(
        "enrol",
        None,
        &json!({
            "token_id": id.as_str(),
            "client_name": client.as_str(),
            "issued_at_unix_secs": issued_at,
            "expires_at_unix_secs": expires_at,
            "scope": scope_json(&scope),
            "token_file": token_file.display().to_string(),
            "token": token.as_ref().map(|t| t.as_str()),
        }),
        |s| {
            let mut text = format!(
                "{} client {} as token {}\n  scope: {tools} × {verbs}\n  expires: {}\n  token written to {} (mode 0600)\n",
                s.good("enrolled"),
                client.as_str(),
                id.as_str(),
                utc(expires_at),
                token_file.display()
            );
            if let Some(t) = &token {
                text.push_str(&format!("{}\n", t.as_str()));
            }
            text
        },
    );
    Ok(Exit::Ok)
}

/// `devint tokens …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TokensAction {
    /// List the enrolled tokens (ids, clients, scope, expiry; never secrets).
    #[command(after_help = "Example:\n  devint tokens list")]
    List,
    /// Issue a new token with the same scope, write it, then revoke the old one.
    #[command(
        after_help = "Example:\n  devint tokens rotate tok_0123456789abcdef0123456789abcdef"
    )]
    Rotate {
        /// The token id (from `devint tokens list`).
        #[arg(value_parser = parse_token_id)]
        id: TokenId,
        /// Where to write the new token (default as for `enrol`).
        #[arg(long)]
        token_file: Option<PathBuf>,
    },
    /// Revoke a token: the next request with it is denied.
    #[command(
        after_help = "Example:\n  devint tokens revoke tok_0123456789abcdef0123456789abcdef"
    )]
    Revoke {
        /// The token id (from `devint tokens list`).
        #[arg(value_parser = parse_token_id)]
        id: TokenId,
    },
}

fn parse_token_id(s: &str) -> Result<TokenId, String> {
    TokenId::parse(s).map_err(|_| {
        "a token id looks like tok_ and 32 hex characters; `devint tokens list` shows them"
            .to_owned()
    })
}

/// Run `tokens list`.
pub fn list(out: &Out, book: &Path) -> Result<Exit, CliError> {
    let book = BookFile::new(book).load().map_err(book_error)?;
    let now = now();
    let records: Vec<Value> = book.list().map(|r| record_json(r, now)).collect();
    out.result("tokens list", None, &json!({ "tokens": records }), |s| {
        if book.is_empty() {
            return "no client is enrolled; `devint enrol --client NAME --all-tools` enrols one"
                .into();
        }
        let mut t = Table::new(&["TOKEN ID", "CLIENT", "TOOLS", "VERBS", "ISSUED", "EXPIRES"]);
        for r in book.list() {
            let (tools, verbs) = scope_words(r.scope());
            t.row(vec![
                r.token_id().as_str().to_owned(),
                r.client_name().as_str().to_owned(),
                tools,
                verbs,
                utc(r.issued_at()),
                if r.is_expired(now) {
                    s.bad(&format!("{} (expired)", utc(r.expires_at())))
                } else {
                    utc(r.expires_at())
                },
            ]);
        }
        t.render("")
    });
    Ok(Exit::Ok)
}

/// Run `tokens rotate`: issue the new record, write the new token file, then revoke the
/// old record — so there is never a moment without a valid token (spec §7).
pub fn rotate(out: &Out, book: &Path, id: &TokenId, token_file: &Path) -> Result<Exit, CliError> {
    let file = BookFile::new(book);
    let issued_at = now();
    let (new_id, secret, old) = file
        .update(|b| {
            let old = b
                .get(id)
                .cloned()
                .ok_or_else(|| devint::auth::EnrolmentError::UnknownTokenId(id.clone()))?;
            let lifetime =
                (old.expires_at().duration_since(old.issued_at())).max(Duration::from_secs(1));
            let (new_id, secret) = b.issue(
                old.client_name().clone(),
                old.scope().clone(),
                lifetime,
                issued_at,
            )?;
            Ok((new_id, secret, old))
        })
        .map_err(book_error)?;
    if let Err(e) = write_token_file(token_file, &secret) {
        let _ = file.update(|b| b.revoke(&new_id).map(|_| ()));
        return Err(
            CliError::internal(format!("{e}; the old token {id} is still valid"))
                .fix("choose a writable --token-file and rotate again"),
        );
    }
    file.update(|b| b.revoke(id).map(|_| ()))
        .map_err(book_error)?;
    out.result(
        "tokens rotate",
        None,
        &json!({
            "revoked_token_id": id.as_str(),
            "token_id": new_id.as_str(),
            "client_name": old.client_name().as_str(),
            "token_file": token_file.display().to_string(),
        }),
        |s| {
            format!(
                "{} {} → {} for client {}\n  new token written to {} (mode 0600); the old token is revoked\n",
                s.good("rotated"),
                id.as_str(),
                new_id.as_str(),
                old.client_name().as_str(),
                token_file.display()
            )
        },
    );
    Ok(Exit::Ok)
}

/// Run `tokens revoke`.
pub fn revoke(out: &Out, book: &Path, id: &TokenId) -> Result<Exit, CliError> {
    let record = BookFile::new(book)
        .update(|b| b.revoke(id))
        .map_err(book_error)?;
    out.result(
        "tokens revoke",
        None,
        &json!({ "revoked_token_id": id.as_str(), "client_name": record.client_name().as_str() }),
        |s| {
            format!(
                "{} {} (client {}); its next request is denied\n",
                s.good("revoked"),
                id.as_str(),
                record.client_name().as_str()
            )
        },
    );
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verb_sets_parse_named_sets_and_lists() {
        assert_eq!(parse_verbs("read-only"), Ok(VerbSet::read_only()));
        assert_eq!(parse_verbs("full"), Ok(VerbSet::full_lifecycle()));
        let set = parse_verbs("status,plan").unwrap();
        assert!(set.contains(Verb::Status) && set.contains(Verb::Plan));
        assert!(!set.contains(Verb::Apply));
        assert!(parse_verbs("status,launch").is_err());
        assert!(parse_verbs(",").is_err());
    }

    #[test]
    fn durations_take_a_unit_and_refuse_zero() {
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_duration("90m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert!(parse_duration("0d").is_err());
        assert!(parse_duration("3w").is_err());
        assert!(parse_duration("d").is_err());
    }
}
