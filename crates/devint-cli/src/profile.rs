//! `devint profile list|show ID`: the policy profiles a plan can name, and the values each
//! will write — read on the trusted side, since a plan on the wire carries no values.
//!
//! Like `enrol` reads the book, this command reads the runtime's state directory directly,
//! as the user who owns it: the profiles (through the runtime's own loader, so values and
//! digest are exactly what a plan uses) and the gateway URL the last `devint serve` there
//! was configured with ([`crate::backend::served_gateway`]). It is not a DI-API verb and
//! talks to no runtime. It must never send these values anywhere but this terminal.

use devint::verbs::{PolicyProfileId, Profile};
use devint_runtime::adapters::DenyRule;
use devint_runtime::reference::{LoadedProfile, PolicyCatalogue, PolicyUrl, ProfileError};
use serde_json::json;

use crate::args;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::state::StateDir;
use crate::suggest;

/// `devint profile …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ProfileAction {
    /// Every policy profile a plan can name (--policy ID), with its digest.
    #[command(after_help = "Example:\n  devint profile list")]
    List,
    /// The values a policy profile writes: gateway URL, proxy, hook command, deny lists.
    #[command(after_help = "Example:\n  devint profile show recommended")]
    Show {
        /// The policy profile id (`devint profile list`).
        #[arg(value_name = "ID", value_parser = args::policy_id(),
              add = clap_complete::engine::ArgValueCandidates::new(profile_candidates))]
        id: PolicyProfileId,
    },
}

impl ProfileAction {
    /// The command's name in JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            ProfileAction::List => "profile list",
            ProfileAction::Show { .. } => "profile show",
        }
    }
}

/// Completion candidates: the built-ins and the default state directory's profiles.
fn profile_candidates() -> Vec<clap_complete::engine::CompletionCandidate> {
    let ids = StateDir::resolve(None)
        .map(|state| catalogue(&state).0.ids())
        .unwrap_or_default();
    ids.iter()
        .map(|id| clap_complete::engine::CompletionCandidate::new(id.as_str()))
        .collect()
}

/// "; did you mean `recommended`?" when `id` is not a profile of the default state
/// directory's runtime and one is close; empty otherwise (best effort, for a refused plan).
pub fn suggestion(id: &PolicyProfileId) -> String {
    let Ok(state) = StateDir::resolve(None) else {
        return String::new();
    };
    let ids = catalogue(&state).0.ids();
    if ids.contains(id) {
        return String::new();
    }
    suggest::did_you_mean(id.as_str(), ids.iter().map(PolicyProfileId::as_str))
}

/// The runtime's catalogue, and whether a runtime recorded its gateway URL there.
fn catalogue(state: &StateDir) -> (PolicyCatalogue, Option<Option<String>>) {
    let served = crate::backend::served_gateway(&state.backend());
    let gateway = served.clone().flatten();
    (
        PolicyCatalogue::new(&state.backend(), gateway.as_deref()),
        served,
    )
}

/// What `serve` says at start about the policy profile documents in `state` that do not
/// load (a refused gateway or proxy URL, bad TOML): one line each, so a broken document is
/// found before a plan names it. Serving goes on: the other profiles still work, and a plan
/// naming a broken one is refused with the same words.
pub fn unloadable_at_start(state: &StateDir, gateway: Option<&PolicyUrl>) -> Vec<String> {
    let catalogue = PolicyCatalogue::new(&state.backend(), gateway.map(PolicyUrl::as_str));
    catalogue
        .ids()
        .iter()
        .filter_map(|id| catalogue.load(id).err())
        .map(|e| format!("warning: {e}"))
        .collect()
}

fn load_error(e: ProfileError, ids: &[PolicyProfileId], id: &PolicyProfileId) -> CliError {
    match e {
        ProfileError::Unknown { .. } => CliError::usage(format!(
            "no policy profile is named {id}{}",
            suggest::did_you_mean(id.as_str(), ids.iter().map(PolicyProfileId::as_str))
        ))
        .fix("`devint profile list` shows the profiles a plan can name"),
        other => CliError::internal(other.to_string()),
    }
}

/// Run `profile list`.
pub fn list(out: &Out, state: &StateDir) -> Result<Exit, CliError> {
    let (catalogue, served) = catalogue(state);
    let ids = catalogue.ids();
    let rows: Vec<(PolicyProfileId, Result<LoadedProfile, ProfileError>)> = ids
        .iter()
        .map(|id| (id.clone(), catalogue.load(id)))
        .collect();
    let doc: Vec<_> = rows
        .iter()
        .map(|(id, p)| match p {
            Ok(p) => json!({
                "id": id.as_str(),
                "display_name": p.reference().display_name,
                "source": p.source,
                "digest": p.digest,
                "error": null,
            }),
            Err(e) => json!({
                "id": id.as_str(), "display_name": null, "source": null, "digest": null,
                "error": e.to_string(),
            }),
        })
        .collect();
    out.result("profile list", None, &json!({ "profiles": doc }), |p| {
        let mut t = p.table(&["ID", "NAME", "SOURCE", "DIGEST"]);
        for (id, profile) in &rows {
            match profile {
                Ok(pr) => t.row([
                    id.to_string(),
                    pr.reference().display_name.to_string(),
                    pr.source.clone(),
                    pr.digest.as_str()[..12].to_owned(),
                ]),
                Err(e) => t.row([id.to_string(), format!("does not load: {e}"), "-".into(), "-".into()]),
            }
        }
        let mut text = t.render("");
        if served.is_none() {
            text.push_str(&format!(
                "\nNo runtime has served from {} yet: built-in profiles show no gateway URL until `devint serve --gateway-url URL` runs there.\n",
                state.root().display()
            ));
        }
        text.push_str("`devint profile show ID` shows the values a profile writes.\n");
        text
    })?;
    Ok(Exit::Ok)
}

fn or_none(v: &Option<impl ToString>) -> String {
    v.as_ref()
        .map_or_else(|| "(none)".into(), ToString::to_string)
}

/// Deny rules in their tool-neutral written form.
fn rule_texts(rules: &[DenyRule]) -> Vec<String> {
    rules.iter().map(ToString::to_string).collect()
}

fn or_empty(v: &[String]) -> String {
    if v.is_empty() {
        "(none)".into()
    } else {
        v.join(", ")
    }
}

/// Run `profile show ID`.
pub fn show(out: &Out, state: &StateDir, id: &PolicyProfileId) -> Result<Exit, CliError> {
    let (catalogue, served) = catalogue(state);
    let profile = catalogue
        .load(id)
        .map_err(|e| load_error(e, &catalogue.ids(), id))?;
    let d = &profile.document;
    let per_profile: Vec<_> = Profile::ALL
        .iter()
        .map(|pr| {
            let intent = profile.intent(*pr);
            json!({
                "profile": pr.token(),
                "gateway_base_url": intent.gateway_base_url,
                "proxy_url": intent.proxy_url,
                "hook_command": intent.hook_command,
                "mcp_deny": intent.mcp_deny,
                "deny": rule_texts(&intent.deny),
                "require_approval": intent.require_approval,
            })
        })
        .collect();
    let doc = json!({
        "id": id.as_str(),
        "display_name": profile.reference().display_name,
        "source": profile.source,
        "digest": profile.digest,
        "gateway_recorded": served.is_some(),
        "document": {
            "gateway_base_url": d.gateway_base_url,
            "proxy_url": d.proxy_url,
            "hook_command": d.hook_command,
            "mcp_deny": d.mcp_deny,
            "deny": rule_texts(&d.deny_rules()),
            "require_approval": d.require_approval,
        },
        "by_profile": per_profile,
    });
    out.result("profile show", None, &doc, |p| {
        let mut text = format!(
            "{} {} ({}, {})\n  digest: {} (a plan names this digest)\n\n",
            p.s.bold("Policy profile"),
            id,
            profile.reference().display_name,
            profile.source,
            profile.digest
        );
        let mut t = p.table(&["VALUE", "WRITTEN"]);
        t.row(["gateway URL".to_owned(), or_none(&d.gateway_base_url)]);
        t.row(["proxy URL".to_owned(), or_none(&d.proxy_url)]);
        t.row(["hook command".to_owned(), or_none(&d.hook_command)]);
        t.row(["MCP servers denied".to_owned(), or_empty(&d.mcp_deny)]);
        t.row(["actions denied".to_owned(), or_empty(&rule_texts(&d.deny_rules()))]);
        t.row([
            "approval required".to_owned(),
            if d.require_approval { "yes" } else { "no" }.to_owned(),
        ]);
        text.push_str(&t.render("  "));
        text.push_str(&format!(
            "\n  with --profile {}: the gateway and proxy only\n  with --profile {}: all of the above\n  with --profile {}: all of the above, and approval always required\n",
            Profile::ObserveOnly.token(),
            Profile::Recommended.token(),
            Profile::Strict.token(),
        ));
        if served.is_none() && profile.source == "built-in" {
            text.push_str(&format!(
                "\n  No runtime has served from {} yet; a built-in profile's gateway URL is the one `devint serve --gateway-url URL` is given.\n",
                state.root().display()
            ));
        }
        text
    })?;
    Ok(Exit::Ok)
}
