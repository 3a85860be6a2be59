//! `devint enrol` and `devint tokens list|rotate|revoke`: administering the enrolment book.
//!
//! Enrolment is not a DI-API verb (the verb set is closed), so these commands edit the book
//! file directly, as the user who owns it, under its lock ([`BookFile::update`]); a running
//! runtime sees the change on its next request. This module owns the token's one trip to
//! disk: each client's own `0600` file (`<client>.token` beside the socket, unless
//! `--token-file`), which is never overwritten with another client's token. Enrolling a
//! client again replaces its token: the new one is issued and written, then every other
//! token of that client is revoked at once (spec §7: issue-new-then-revoke-old, so there is
//! never a moment without a valid token). A failure (a full disk) either changed nothing, and
//! says so, or came after the commit, and says what is committed and what is left to do
//! ([`Replacement`]). It must never print a secret unless `--print` was given, and never
//! report a failure for an enrolment that took effect without saying that it did.

use std::path::{Path, PathBuf};
use std::time::Duration;

use devint::auth::{
    ClientName, EnrolmentBook, EnrolmentError, EnrolmentRecord, Scope, TokenId, TokenSecret,
    ToolScope,
};
use devint::time::UnixSecs;
use devint::verbs::{ToolId, Verb, VerbSet};
use devint_net::book::BookFile;
use devint_net::client::own_token_file;
use devint_net::token_file::{read_token_file, stage_token_file};
use serde_json::{json, Value};

use crate::args;
use crate::consent;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::state::StateDir;
use crate::words;

/// `devint enrol`'s arguments.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("tools").required(true).args(["tool", "all_tools"])))]
pub struct EnrolArgs {
    /// The client's name (audit records, `tokens list`, and its token file NAME.token).
    /// Enrolling a name again replaces that client's token.
    #[arg(long, value_name = "NAME", value_parser = args::parsed(parse_client))]
    pub client: ClientName,
    /// A tool the token may act on (repeat for more).
    #[arg(long, value_parser = args::ToolArg,
          add = clap_complete::engine::ArgValueCandidates::new(args::tool_candidates))]
    pub tool: Vec<ToolId>,
    /// Every tool, including ones added later.
    #[arg(long)]
    pub all_tools: bool,
    /// `read-only` (list_tools, status, verify, scoped_events), `full` (all nine verbs), or
    /// a comma-separated list of verbs.
    #[arg(long, default_value = "read-only", value_parser = parse_verbs,
          add = clap_complete::engine::ArgValueCandidates::new(verbs_candidates))]
    pub verbs: VerbSet,
    /// How long the token lives (`30d`, `1y`, `12h`, `1h30m`, `3600s`; at most 1 year).
    #[arg(long, default_value = "30d", value_parser = args::ttl())]
    pub ttl: Duration,
    /// Where to write the token (default: NAME.token beside the socket).
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Also print the token on stdout (it is a secret: only for piping into a keychain).
    #[arg(long)]
    pub print: bool,
    /// Do not ask before revoking the client's current token (required when stdin is not
    /// a terminal and the client is already enrolled).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

fn parse_client(s: &str) -> Result<ClientName, String> {
    ClientName::parse(s).map_err(|e| e.to_string())
}

/// Completion candidates for `--verbs`: the named sets, then each verb.
fn verbs_candidates() -> Vec<clap_complete::engine::CompletionCandidate> {
    use clap_complete::engine::CompletionCandidate;
    let mut out = vec![
        CompletionCandidate::new("read-only")
            .help(Some("list_tools, status, verify, scoped_events".into())),
        CompletionCandidate::new("full").help(Some("all nine verbs".into())),
    ];
    out.extend(
        Verb::ALL
            .iter()
            .map(|v| CompletionCandidate::new(v.token())),
    );
    out
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

/// The `--verbs` value for a set: `full`, `read-only`, or the list.
fn verbs_flag(verbs: VerbSet) -> String {
    if verbs == VerbSet::full_lifecycle() {
        "full".to_owned()
    } else if verbs == VerbSet::read_only() {
        "read-only".to_owned()
    } else {
        verbs
            .iter()
            .map(|v| v.token())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// A scope in words: (`all tools` or the ids, `full` / `read-only` / the verbs).
pub fn scope_words(scope: &Scope) -> (String, String) {
    let tools = match &scope.tools {
        ToolScope::All => "all tools".to_owned(),
        ToolScope::Only(set) => set.iter().cloned().collect::<Vec<_>>().join(", "),
    };
    (tools, verbs_flag(scope.verbs))
}

/// The `devint enrol` command that gives `client` `scope`, widened to cover `add` (the
/// verbs a refused command sends, and the tool it was refused on).
pub fn command_for(
    client: &ClientName,
    scope: &Scope,
    add: Option<(VerbSet, Option<&ToolId>)>,
) -> String {
    let mut verbs = scope.verbs;
    let mut tools: Option<Vec<String>> = match &scope.tools {
        ToolScope::All => None,
        ToolScope::Only(set) => Some(set.iter().cloned().collect()),
    };
    if let Some((needs, tool)) = add {
        verbs = needs.iter().fold(verbs, |set, v| set.with(v));
        if let (Some(list), Some(tool)) = (tools.as_mut(), tool) {
            if !list.iter().any(|t| t == tool.as_str()) {
                list.push(tool.as_str().to_owned());
            }
        }
    }
    let tools = match tools {
        None => "--all-tools".to_owned(),
        Some(list) => list
            .iter()
            .map(|t| format!("--tool {t}"))
            .collect::<Vec<_>>()
            .join(" "),
    };
    format!(
        "devint enrol --client {} {tools} --verbs {}",
        client.as_str(),
        verbs_flag(verbs)
    )
}

fn record_json(r: &EnrolmentRecord, now: u64) -> Value {
    json!({
        "token_id": r.token_id().as_str(),
        "client_name": r.client_name().as_str(),
        "issued_at_unix_secs": r.issued_at(),
        "expires_at_unix_secs": r.expires_at(),
        "expired": r.is_expired(UnixSecs::new(now)),
        "scope": scope_json(r.scope()),
    })
}

/// Refuse to write over a file holding another client's enrolled token.
fn check_not_anothers(
    file: &Path,
    client: &ClientName,
    book: &EnrolmentBook,
) -> Result<(), CliError> {
    let Ok(secret) = read_token_file(file) else {
        return Ok(());
    };
    match book.find(&secret) {
        Some(r) if r.client_name() != client => Err(CliError::usage(format!(
            "{} holds the token of client {} ({}); enrolling {} there would lock {} out",
            file.display(),
            r.client_name().as_str(),
            r.token_id().as_str(),
            client.as_str(),
            r.client_name().as_str()
        ))
        .fix(format!(
            "leave --token-file out (each client gets NAME.token beside the socket), or revoke {}'s token first (`devint tokens revoke {}`)",
            r.client_name().as_str(),
            r.token_id().as_str()
        ))),
        _ => Ok(()),
    }
}

/// Enrolling a client that holds tokens revokes them: say which, and ask unless `yes`.
fn confirm_replacing(
    out: &Out,
    book: &EnrolmentBook,
    client: &ClientName,
    yes: bool,
) -> Result<(), CliError> {
    let current: Vec<&str> = book
        .list()
        .filter(|r| r.client_name() == client)
        .map(|r| r.token_id().as_str())
        .collect();
    if current.is_empty() || yes {
        return Ok(());
    }
    out.note(&format!(
        "client {} is enrolled as {}; enrolling it again issues a new token and revokes that one at once",
        client.as_str(),
        current.join(", ")
    ));
    consent::confirm(
        out,
        &format!("Replace the token of client {}?", client.as_str()),
        yes,
        "enrol",
    )
}

/// A new token for a client, committed in the one order that never leaves the client without
/// a valid token, nor a record whose secret nobody holds:
///
/// 1. under the book's lock, the record is issued in memory and the token written beside
///    its file (staged, fsynced) — a failure here changes nothing;
/// 2. the book is saved with the new record — the commit; a failure changes nothing (the
///    staged token is removed);
/// 3. the staged token replaces the client's file (a failure undoes the commit, or says
///    exactly what is left);
/// 4. the tokens it replaces are revoked in a second save (spec §7: issue new, then revoke
///    old) — a failure here leaves the enrolment committed, and the error says so and names
///    the tokens still valid. With nothing to revoke there is no second save.
struct Replacement<'a> {
    book: &'a BookFile,
    token_file: &'a Path,
    /// What is replaced (`client vscode`, `token tok_…`).
    subject: String,
    /// What the command does to it (`enrolled`, `rotated`).
    done: &'static str,
}

/// A replacement committed: the new token and the ones it revoked.
struct Replaced {
    id: TokenId,
    secret: TokenSecret,
    revoked: Vec<TokenId>,
}

impl Replacement<'_> {
    /// Issue with `issue`, then revoke what `replaces` picks from the book (never the new
    /// token), in the order above.
    fn run(
        &self,
        issue: impl FnOnce(&mut EnrolmentBook) -> Result<(TokenId, TokenSecret), EnrolmentError>,
        replaces: impl Fn(&EnrolmentRecord) -> bool,
    ) -> Result<Replaced, CliError> {
        let _lock = self.book.lock().map_err(book_error)?;
        let mut book = self.book.load().map_err(book_error)?;
        let (id, secret) = issue(&mut book).map_err(|e| book_error(e.into()))?;
        let staged = stage_token_file(self.token_file, &secret)
            .map_err(|e| self.nothing(e.to_string(), "the token file"))?;
        self.book
            .save(&book)
            .map_err(|e| self.nothing(e.to_string(), "the enrolment book"))?;
        if let Err(e) = staged.commit() {
            return Err(self.undo(&mut book, &id, &e.to_string()));
        }
        let old: Vec<TokenId> = book
            .list()
            .filter(|r| r.token_id() != &id && replaces(r))
            .map(|r| r.token_id().clone())
            .collect();
        if old.is_empty() {
            return Ok(Replaced {
                id,
                secret,
                revoked: old,
            });
        }
        for o in &old {
            book.revoke(o).map_err(|e| book_error(e.into()))?;
        }
        match self.book.save(&book) {
            Ok(()) => Ok(Replaced {
                id,
                secret,
                revoked: old,
            }),
            Err(e) => Err(self.not_revoked(&id, &old, &e.to_string())),
        }
    }

    /// Nothing of it was committed.
    fn nothing(&self, why: String, place: &str) -> CliError {
        CliError::internal(format!("nothing was {}: {why}", self.done)).fix(format!(
            "free space for {place} (or make its directory writable), then run the command again"
        ))
    }

    /// The token could not be put in place after the book committed its record: take the
    /// record out again, or say that it stays.
    fn undo(&self, book: &mut EnrolmentBook, id: &TokenId, why: &str) -> CliError {
        let taken_out = book.revoke(id).is_ok() && self.book.save(book).is_ok();
        if taken_out {
            return CliError::internal(format!("nothing was {}: {why}", self.done))
                .fix("make the token file's directory writable, then run the command again");
        }
        CliError::internal(format!(
            "the enrolment book records token {id}, but its secret could not be put in {}: {why}; nobody holds that token, and the client's previous token is unchanged",
            self.token_file.display()
        ))
        .fix(format!("revoke the unused record: `devint tokens revoke {id}`"))
    }

    /// Committed, but the tokens it replaces are still valid.
    fn not_revoked(&self, id: &TokenId, old: &[TokenId], why: &str) -> CliError {
        let old: Vec<&str> = old.iter().map(TokenId::as_str).collect();
        CliError::internal(format!(
            "{} was {} as token {id} (written to {}); but the token{} it replaces, {}, could not be revoked and {} still valid: {why}",
            self.subject,
            self.done,
            self.token_file.display(),
            if old.len() == 1 { "" } else { "s" },
            old.join(", "),
            if old.len() == 1 { "is" } else { "are" },
        ))
        .fix(format!(
            "make room for the enrolment book, then revoke {}: {}",
            if old.len() == 1 { "it" } else { "them" },
            old.iter()
                .map(|o| format!("`devint tokens revoke {o}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// Run `enrol`: issue, write the client's own file, then revoke the client's older tokens.
pub fn enrol(
    out: &Out,
    state: &StateDir,
    socket: &Path,
    args: &EnrolArgs,
) -> Result<Exit, CliError> {
    let client = &args.client;
    for tool in &args.tool {
        if devint_runtime::adapters::find(tool.as_str()).is_none() {
            return Err(CliError::usage(format!(
                "no adapter knows the tool {tool}{}",
                crate::suggest::did_you_mean(tool.as_str(), args::known_tools())
            ))
            .fix("`devint tools` lists the tool ids"));
        }
    }
    let token_file = match &args.token_file {
        Some(f) => f.clone(),
        None => own_token_file(socket, client),
    };
    let scope = Scope {
        tools: if args.all_tools {
            ToolScope::All
        } else {
            ToolScope::only(args.tool.iter().map(|t| t.as_str().to_owned()))
        },
        verbs: args.verbs,
    };
    let issued_at = words::now_unix_secs();
    let file = BookFile::new(state.book());
    let book = file.load().map_err(book_error)?;
    check_not_anothers(&token_file, client, &book)?;
    confirm_replacing(out, &book, client, args.yes)?;
    let Replaced {
        id,
        secret,
        revoked,
    } = Replacement {
        book: &file,
        token_file: &token_file,
        subject: format!("client {}", client.as_str()),
        done: "enrolled",
    }
    .run(
        |b| {
            b.issue(
                client.clone(),
                scope.clone(),
                args.ttl,
                UnixSecs::new(issued_at),
            )
        },
        |r| r.client_name() == client,
    )?;
    let expires_at = issued_at.saturating_add(args.ttl.as_secs());
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
            "revoked_token_ids": revoked.iter().map(TokenId::as_str).collect::<Vec<_>>(),
        }),
        |p| {
            let mut text = format!(
                "{} client {} as token {}: {tools}, {verbs}; expires {} ({})\n  token written to {} (mode 0600)\n",
                p.s.good("Enrolled"),
                client.as_str(),
                id.as_str(),
                words::time(expires_at),
                words::relative(expires_at),
                token_file.display()
            );
            for old in &revoked {
                text.push_str(&format!(
                    "  replaces {}, revoked now: its next request is denied\n",
                    old.as_str()
                ));
            }
            if let Some(t) = &token {
                text.push_str(&format!("{}\n", t.as_str()));
            }
            text
        },
    )?;
    Ok(Exit::Ok)
}

/// `devint tokens …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TokensAction {
    /// List the enrolled tokens (ids, clients, scope, expiry; never secrets).
    #[command(after_help = "Example:\n  devint tokens list")]
    List,
    /// Issue a new token with the same scope, write it to the client's file, then revoke
    /// the old one.
    #[command(
        after_help = "Example:\n  devint tokens rotate tok_0123456789abcdef0123456789abcdef --yes"
    )]
    Rotate {
        /// The token id (from `devint tokens list`).
        #[arg(value_parser = parse_token_id)]
        id: TokenId,
        /// Where to write the new token (default: the client's NAME.token beside the
        /// socket).
        #[arg(long, value_name = "PATH")]
        token_file: Option<PathBuf>,
        /// Do not ask for confirmation (required when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Revoke a token: the next request with it is denied.
    #[command(
        after_help = "Example:\n  devint tokens revoke tok_0123456789abcdef0123456789abcdef --yes"
    )]
    Revoke {
        /// The token id (from `devint tokens list`).
        #[arg(value_parser = parse_token_id)]
        id: TokenId,
        /// Do not ask for confirmation (required when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

impl TokensAction {
    /// The command's name in JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            TokensAction::List => "tokens list",
            TokensAction::Rotate { .. } => "tokens rotate",
            TokensAction::Revoke { .. } => "tokens revoke",
        }
    }
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
    let now = words::now_unix_secs();
    let records: Vec<Value> = book.list().map(|r| record_json(r, now)).collect();
    out.result("tokens list", None, &json!({ "tokens": records }), |p| {
        if book.is_empty() {
            return "No client is enrolled; `devint enrol --client NAME --all-tools` enrols one."
                .into();
        }
        let mut t = p
            .table(&["TOKEN ID", "CLIENT", "TOOLS", "VERBS", "EXPIRES"])
            .whole(0);
        for r in book.list() {
            let (tools, verbs) = scope_words(r.scope());
            t.row(vec![
                r.token_id().as_str().to_owned(),
                r.client_name().as_str().to_owned(),
                tools,
                verbs,
                words::expiry(r.expires_at().get(), now),
            ]);
        }
        t.render("")
    })?;
    Ok(Exit::Ok)
}

/// Run `tokens rotate`: issue the new record, write the client's token file, then revoke
/// the old record — so there is never a moment without a valid token (spec §7).
pub fn rotate(
    out: &Out,
    state: &StateDir,
    socket: &Path,
    id: &TokenId,
    token_file: Option<&Path>,
    yes: bool,
) -> Result<Exit, CliError> {
    let file = BookFile::new(state.book());
    confirm_for(
        out,
        &file,
        id,
        yes,
        "tokens rotate",
        "The old token is revoked once the new one is written",
    )?;
    let issued_at = words::now_unix_secs();
    let old = file
        .load()
        .map_err(book_error)?
        .get(id)
        .cloned()
        .ok_or_else(|| {
            book_error(devint_net::book::BookFileError::Enrolment(
                EnrolmentError::UnknownTokenId(id.clone()),
            ))
        })?;
    let token_file = match token_file {
        Some(f) => f.to_path_buf(),
        None => own_token_file(socket, old.client_name()),
    };
    let lifetime = old
        .expires_at()
        .duration_since(old.issued_at())
        .clamp(Duration::from_secs(1), args::MAX_TTL);
    let Replaced { id: new_id, .. } = Replacement {
        book: &file,
        token_file: &token_file,
        subject: format!("token {id}"),
        done: "rotated",
    }
    .run(
        |b| {
            // Rotated only while the old record is still there.
            b.get(id)
                .ok_or_else(|| EnrolmentError::UnknownTokenId(id.clone()))?;
            b.issue(
                old.client_name().clone(),
                old.scope().clone(),
                lifetime,
                UnixSecs::new(issued_at),
            )
        },
        |r| r.token_id() == id,
    )?;
    out.result(
        "tokens rotate",
        None,
        &json!({
            "revoked_token_id": id.as_str(),
            "token_id": new_id.as_str(),
            "client_name": old.client_name().as_str(),
            "token_file": token_file.display().to_string(),
        }),
        |p| {
            format!(
                "{} {} → {} for client {}\n  new token written to {} (mode 0600); the old token is revoked\n",
                p.s.good("Rotated"),
                id.as_str(),
                new_id.as_str(),
                old.client_name().as_str(),
                token_file.display()
            )
        },
    )?;
    Ok(Exit::Ok)
}

/// Ask (unless `yes`) before `action` (`tokens rotate`) changes token `id`, which must be
/// enrolled (an unknown id is refused before anything is asked); `then` says what follows.
fn confirm_for(
    out: &Out,
    file: &BookFile,
    id: &TokenId,
    yes: bool,
    action: &str,
    then: &str,
) -> Result<(), CliError> {
    let book = file.load().map_err(book_error)?;
    let record = book.get(id).ok_or_else(|| {
        book_error(devint_net::book::BookFileError::Enrolment(
            devint::auth::EnrolmentError::UnknownTokenId(id.clone()),
        ))
    })?;
    let verb = action.trim_start_matches("tokens ");
    let mut question = format!(
        "{} token {id} of client {}? {then}",
        verb,
        record.client_name().as_str()
    );
    if let Some(first) = question.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    consent::confirm(out, &question, yes, action)
}

/// Run `tokens revoke`: ask unless `yes`, then revoke.
pub fn revoke(out: &Out, book: &Path, id: &TokenId, yes: bool) -> Result<Exit, CliError> {
    let file = BookFile::new(book);
    confirm_for(
        out,
        &file,
        id,
        yes,
        "tokens revoke",
        "Its next request is denied",
    )?;
    let record = file.update(|b| b.revoke(id)).map_err(book_error)?;
    out.result(
        "tokens revoke",
        None,
        &json!({ "revoked_token_id": id.as_str(), "client_name": record.client_name().as_str() }),
        |p| {
            format!(
                "{} {} (client {}); its next request is denied\n",
                p.s.good("Revoked"),
                id.as_str(),
                record.client_name().as_str()
            )
        },
    )?;
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
    fn a_failure_after_the_commit_says_what_is_committed_and_what_is_still_valid() {
        let dir = tempfile::tempdir().unwrap();
        let book = BookFile::new(dir.path().join("enrolment.json"));
        let file = dir.path().join("vscode.token");
        let replacement = Replacement {
            book: &book,
            token_file: &file,
            subject: "client vscode".into(),
            done: "enrolled",
        };
        let new = TokenId::parse("tok_0123456789abcdef0123456789abcdef").unwrap();
        let old = TokenId::parse("tok_fedcba9876543210fedcba9876543210").unwrap();
        let e = replacement.not_revoked(&new, std::slice::from_ref(&old), "disk full");
        assert!(
            e.message
                .starts_with(&format!("client vscode was enrolled as token {new}")),
            "{}",
            e.message
        );
        assert!(e
            .message
            .contains(&format!("{old}, could not be revoked and is still valid")));
        assert!(e
            .remediation
            .unwrap()
            .contains(&format!("`devint tokens revoke {old}`")));
        let e = replacement.nothing("disk full".into(), "the enrolment book");
        assert!(e.message.starts_with("nothing was enrolled: disk full"));
    }

    #[test]
    fn the_enrol_command_for_a_refusal_widens_the_scope_to_cover_it() {
        let client = ClientName::parse("vscode").unwrap();
        let codex = ToolId::parse("codex").unwrap();
        let scope = Scope {
            tools: ToolScope::only(["claude-code".to_owned()]),
            verbs: VerbSet::read_only(),
        };
        assert_eq!(
            command_for(&client, &scope, Some((VerbSet::EMPTY.with(Verb::Plan), Some(&codex)))),
            "devint enrol --client vscode --tool claude-code --tool codex --verbs list_tools,plan,status,verify,scoped_events"
        );
        let all = Scope::full_lifecycle(ToolScope::All);
        assert_eq!(
            command_for(&client, &all, None),
            "devint enrol --client vscode --all-tools --verbs full"
        );
    }
}
