//! Policy profiles, trusted side only: the built-ins (`recommended`, `strict`,
//! `observe_only`) and named TOML documents in `profiles/`, resolved into an
//! [`IntegrationIntent`] for one integration [`Profile`].
//!
//! Owns loading, digesting and resolving policy documents. The document's values never
//! leave this module except inside the intent (which only the adapters' engine reads); the
//! wire sees a [`PolicyProfileRefView`] `{id, display_name, digest}`. It must never decide a
//! policy question for an agent (ADR forbidden design 6) and never guess a missing value.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest as _, Sha256};

use super::policy_url::PolicyUrl;
use super::pure_memo::PureMemo;
use crate::adapters::ClaudePattern;
use crate::adapters::{DenyRule, IntegrationIntent};
use crate::edit::guard;
use devint::verbs::{Digest, Level, PolicyProfileId, PolicyProfileRefView, Profile, Sentence};
use devint_fs::read::{Follow, Limit};

/// A policy document as written in `profiles/<id>.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyDocument {
    /// The name shown to people.
    pub display_name: Option<String>,
    /// Route model traffic to this gateway (checked and normalised as it is read).
    pub gateway_base_url: Option<PolicyUrl>,
    /// Route HTTP(S) traffic through this proxy (checked and normalised as it is read).
    pub proxy_url: Option<PolicyUrl>,
    /// Run this command before tool actions.
    pub hook_command: Option<String>,
    /// MCP servers to deny.
    #[serde(default)]
    pub mcp_deny: Vec<String>,
    /// What the tools must not do, in the tool-neutral vocabulary (`shell:curl`,
    /// `web_fetch`, `read:~/.ssh/**`, `mcp:github`, …; see [`DenyRule`]).
    #[serde(default)]
    pub deny: Vec<DenyRule>,
    /// The same, written as Claude Code permission patterns (`Bash(curl:*)`, `WebFetch`):
    /// read into the vocabulary as the document loads, or refused naming the accepted forms.
    #[serde(default)]
    pub deny_tool_patterns: Vec<ClaudePattern>,
    /// Whether tool actions need approval.
    #[serde(default)]
    pub require_approval: bool,
}

impl PolicyDocument {
    /// Every deny rule the document states — `deny` first, then `deny_tool_patterns` —
    /// each once.
    pub fn deny_rules(&self) -> Vec<DenyRule> {
        let mut rules: Vec<DenyRule> = Vec::new();
        let patterns = self.deny_tool_patterns.iter().map(|p| &p.0);
        for rule in self.deny.iter().chain(patterns) {
            if !rules.contains(rule) {
                rules.push(rule.clone());
            }
        }
        rules
    }
}

/// A loaded policy profile: its document, digest and reference.
#[derive(Debug, Clone)]
pub struct LoadedProfile {
    /// The id.
    pub id: PolicyProfileId,
    /// Where it came from (`built-in` or the file name).
    pub source: String,
    /// The document.
    pub document: PolicyDocument,
    /// SHA-256 of the document's bytes (built-ins: of their canonical TOML).
    pub digest: Digest,
}

/// Why a policy profile could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// No built-in and no `profiles/<id>.toml`.
    #[error("no policy profile named {id} (built-ins: recommended, strict, observe_only; or add profiles/{id}.toml to the runtime's state directory)")]
    Unknown {
        /// The id asked for.
        id: String,
    },
    /// The document exists but does not load.
    #[error(
        "the policy profile {id} does not load: {reason}; fix profiles/{id}.toml and plan again"
    )]
    Unloadable {
        /// The id.
        id: String,
        /// Why (a parser message; never a value).
        reason: String,
    },
}

/// The built-in profile ids.
pub const BUILT_INS: [&str; 3] = ["recommended", "strict", "observe_only"];

fn sha(bytes: &[u8]) -> Digest {
    Digest::sha256(Sha256::digest(bytes).into())
}

/// The built-in document for `id`, given the runtime's configured gateway.
fn built_in(id: &str, gateway: Option<&PolicyUrl>) -> Option<PolicyDocument> {
    let base = PolicyDocument {
        gateway_base_url: gateway.cloned(),
        ..PolicyDocument::default()
    };
    match id {
        "recommended" => Some(PolicyDocument {
            display_name: Some("Recommended (built-in)".into()),
            ..base
        }),
        "strict" => Some(PolicyDocument {
            display_name: Some("Strict (built-in)".into()),
            require_approval: true,
            ..base
        }),
        "observe_only" => Some(PolicyDocument {
            display_name: Some("Observe only (built-in)".into()),
            ..base
        }),
        _ => None,
    }
}

/// The built-in document `id` with `gateway`, and its digest (of its canonical `Debug`
/// form), or `None` for an id no built-in has. Both depend on the id and the gateway alone,
/// so the last few are kept by those: the document and its digest are made together, from
/// the key, and can never be paired with another key's (every `plan` loads a profile;
/// `load` was ~7.5 % of `devint serve`'s CPU while it answered plans, this formatting and
/// hashing included).
fn built_in_with_digest(
    id: &PolicyProfileId,
    gateway: Option<&PolicyUrl>,
) -> Option<(PolicyDocument, Digest)> {
    static KEPT: PureMemo<(String, Option<String>), (PolicyDocument, Digest)> = PureMemo::new(8);
    let key = (
        id.as_str().to_owned(),
        gateway.map(|g| g.as_str().to_owned()),
    );
    KEPT.get_or_try(key, 0, |_| {
        let document = built_in(id.as_str(), gateway).ok_or(())?;
        let digest = sha(canonical_built_in(&document).as_bytes());
        Ok::<_, ()>((document, digest))
    })
    .ok()
}

/// The text a built-in document's digest is taken of. It spells the fields a built-in sets,
/// and no others, so the digest of an installed built-in stays the same across builds that
/// add fields built-ins leave empty (a changed digest reads as "the policy changed since it
/// was installed").
fn canonical_built_in(d: &PolicyDocument) -> String {
    format!(
        "PolicyDocument {{ display_name: {:?}, gateway_base_url: {:?}, proxy_url: {:?}, hook_command: {:?}, mcp_deny: {:?}, deny_tool_patterns: [], require_approval: {:?} }}",
        d.display_name, d.gateway_base_url, d.proxy_url, d.hook_command, d.mcp_deny, d.require_approval
    )
}

/// Loads the profile `id`: `profiles/<id>.toml` first (a user document shadows a built-in
/// of the same name), then the built-ins.
pub fn load(
    profiles_dir: &Path,
    id: &PolicyProfileId,
    gateway: Option<&PolicyUrl>,
) -> Result<LoadedProfile, ProfileError> {
    let file = profiles_dir.join(format!("{}.toml", id.as_str()));
    let unloadable = |reason: String| ProfileError::Unloadable {
        id: id.as_str().to_owned(),
        reason,
    };
    match super::reads::bytes(&file, Follow::Symlinks, Limit::PROFILE) {
        Ok(Some(bytes)) => {
            // A document depends on its bytes alone: the last few parsed are kept by them.
            static PARSED: PureMemo<Vec<u8>, (PolicyDocument, Digest)> = PureMemo::new(8);
            let size = bytes.len();
            let (document, digest) = PARSED.get_or_try(bytes, size, |bytes| {
                let text =
                    std::str::from_utf8(bytes).map_err(|_| unloadable("it is not UTF-8".into()))?;
                let document: PolicyDocument = guard::parse(&file, || toml::from_str(text))
                    .map_err(|e| unloadable(e.to_string()))?
                    .map_err(|e| {
                        // The parser's full message quotes the offending line (which may hold
                        // a password): keep the first line of the problem, and name the place
                        // by line number and key only.
                        let problem = e.message().lines().next().unwrap_or("parse error");
                        unloadable(match e.span() {
                            Some(span) => format!("{}: {problem}", place(text, span.start)),
                            None => problem.to_owned(),
                        })
                    })?;
                Ok((document, sha(bytes)))
            })?;
            Ok(LoadedProfile {
                id: id.clone(),
                source: format!("profiles/{}.toml", id.as_str()),
                document,
                digest,
            })
        }
        Ok(None) => {
            let (document, digest) =
                built_in_with_digest(id, gateway).ok_or_else(|| ProfileError::Unknown {
                    id: id.as_str().to_owned(),
                })?;
            Ok(LoadedProfile {
                id: id.clone(),
                source: "built-in".into(),
                document,
                digest,
            })
        }
        Err(e) => Err(unloadable(e.to_string())),
    }
}

/// Where byte `at` of a profile document is: `line N`, and `(key)` when that line sets a
/// plain key — never any of the line's value.
fn place(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let number = text[..at].matches('\n').count() + 1;
    let line = text[start..].lines().next().unwrap_or("");
    let key = line.split_once('=').map(|(k, _)| k.trim()).filter(|k| {
        !k.is_empty()
            && k.len() <= 64
            && k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    });
    match key {
        Some(key) => format!("line {number} ({key})"),
        None => format!("line {number}"),
    }
}

impl LoadedProfile {
    /// The wire reference: id, display name and digest; never a value.
    pub fn reference(&self) -> PolicyProfileRefView {
        let name = self
            .document
            .display_name
            .clone()
            .unwrap_or_else(|| self.id.as_str().to_owned());
        PolicyProfileRefView {
            id: self.id.clone(),
            display_name: Sentence::or_placeholder(&name).0,
            digest: self.digest.clone(),
        }
    }

    /// The intent this document asks of `profile`.
    ///
    /// `observe_only` routes traffic only (gateway and proxy); `recommended` adds hooks and
    /// the deny lists; `strict` also requires approval.
    pub fn intent(&self, profile: Profile) -> IntegrationIntent {
        let d = &self.document;
        let observe = IntegrationIntent {
            gateway_base_url: d.gateway_base_url.as_ref().map(|u| u.as_str().to_owned()),
            proxy_url: d.proxy_url.as_ref().map(|u| u.as_str().to_owned()),
            ..IntegrationIntent::default()
        };
        match profile {
            Profile::ObserveOnly => observe,
            Profile::Recommended => IntegrationIntent {
                hook_command: d.hook_command.clone(),
                mcp_deny: d.mcp_deny.clone(),
                deny: d.deny_rules(),
                require_approval: d.require_approval,
                ..observe
            },
            Profile::Strict => IntegrationIntent {
                hook_command: d.hook_command.clone(),
                mcp_deny: d.mcp_deny.clone(),
                deny: d.deny_rules(),
                require_approval: true,
                ..observe
            },
        }
    }
}

/// The policy profiles a runtime offers, read on the trusted side by the runtime's own
/// user (`devint profile list|show`): the built-ins, shadowed by `profiles/<id>.toml` in
/// the runtime's state directory, loaded exactly as a plan loads them (same values, same
/// digest). Only for people on the trusted side: a value read here never goes on the wire.
#[derive(Debug, Clone)]
pub struct PolicyCatalogue {
    dir: PathBuf,
    /// The runtime's gateway, checked (a recorded value that no longer checks out is why
    /// the built-ins do not load).
    gateway: Result<Option<PolicyUrl>, super::policy_url::PolicyUrlError>,
}

impl PolicyCatalogue {
    /// The catalogue of a runtime whose state directory is `state_dir`
    /// ([`super::RuntimeConfig::state_dir`]) and whose configured gateway is `gateway`.
    pub fn new(state_dir: &Path, gateway: Option<&str>) -> PolicyCatalogue {
        PolicyCatalogue {
            dir: super::layout::StateLayout::unprepared(state_dir).profiles(),
            gateway: gateway.map(PolicyUrl::parse).transpose(),
        }
    }

    /// Every profile id a plan may name: the built-ins and each `profiles/*.toml` whose
    /// name is an id, sorted and without repeats.
    pub fn ids(&self) -> Vec<PolicyProfileId> {
        let mut ids: Vec<PolicyProfileId> = BUILT_INS
            .iter()
            .filter_map(|id| PolicyProfileId::parse(id).ok())
            .collect();
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let id = name
                    .to_str()
                    .and_then(|n| n.strip_suffix(".toml"))
                    .and_then(|n| PolicyProfileId::parse(n).ok());
                ids.extend(id);
            }
        }
        ids.sort();
        ids.dedup();
        ids
    }

    /// The profile `id`, as a plan would load it.
    pub fn load(&self, id: &PolicyProfileId) -> Result<LoadedProfile, ProfileError> {
        match &self.gateway {
            Ok(gateway) => load(&self.dir, id, gateway.as_ref()),
            Err(e) => load(&self.dir, id, None).and_then(|p| match p.source.as_str() {
                "built-in" => Err(ProfileError::Unloadable {
                    id: id.as_str().to_owned(),
                    reason: format!("the runtime's gateway URL {e}"),
                }),
                _ => Ok(p),
            }),
        }
    }
}

/// The highest level a profile may plan (`observe_only` caps at `integrated`).
pub fn level_cap(profile: Profile) -> Level {
    match profile {
        Profile::ObserveOnly => Level::Integrated,
        Profile::Recommended | Profile::Strict => Level::HostEnforced,
    }
}

/// The id used when a plan names no policy profile: the built-in of the same name.
pub fn default_id(profile: Profile) -> PolicyProfileId {
    PolicyProfileId::parse(profile.token()).expect("profile tokens are policy profile ids")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> PolicyProfileId {
        PolicyProfileId::parse(s).unwrap()
    }

    #[test]
    fn a_built_in_digest_is_its_documents_and_follows_the_gateway() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            PolicyUrl::parse("http://127.0.0.1:1").unwrap(),
            PolicyUrl::parse("http://127.0.0.1:2").unwrap(),
        );
        for gateway in [Some(&a), Some(&b), None, Some(&a)] {
            for name in ["recommended", "strict", "observe_only"] {
                let p = load(dir.path(), &id(name), gateway).unwrap();
                let document = built_in(name, gateway).unwrap();
                assert_eq!(
                    p.digest,
                    sha(canonical_built_in(&document).as_bytes()),
                    "{name}"
                );
                assert!(
                    document.deny_rules().is_empty(),
                    "{name}: no rule outside the canonical text"
                );
                assert_eq!(
                    p.document, document,
                    "{name}: the document kept with its key"
                );
            }
        }
        let digest = |g| load(dir.path(), &id("recommended"), g).unwrap().digest;
        assert_ne!(digest(Some(&a)), digest(Some(&b)));
        assert_ne!(digest(Some(&a)), digest(None));
    }

    #[test]
    fn a_built_in_digest_is_the_same_as_in_earlier_builds() {
        let dir = tempfile::tempdir().unwrap();
        for (name, digest) in [
            ("observe_only", "8a0056833399"),
            ("recommended", "4eeb3e48a646"),
            ("strict", "599cc1fb805e"),
        ] {
            let p = load(dir.path(), &id(name), None).unwrap();
            assert!(
                p.digest.to_string().starts_with(digest),
                "{name}: {}",
                p.digest
            );
        }
    }

    #[test]
    fn built_ins_load_and_unknown_ids_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let gateway = PolicyUrl::parse("http://127.0.0.1:1").unwrap();
        let p = load(dir.path(), &id("strict"), Some(&gateway)).unwrap();
        assert_eq!(p.source, "built-in");
        assert!(p.intent(Profile::Strict).require_approval);
        let e = load(dir.path(), &id("team"), None).unwrap_err();
        assert!(e.to_string().contains("profiles/team.toml"), "{e}");
    }

    #[test]
    fn a_recorded_gateway_that_does_not_check_out_keeps_the_built_ins_from_loading() {
        let state = tempfile::tempdir().unwrap();
        let catalogue = PolicyCatalogue::new(state.path(), Some("https://u:hunter2secret@gw"));
        let e = catalogue.load(&id("recommended")).unwrap_err().to_string();
        assert!(e.contains("gateway URL carries credentials"), "{e}");
        assert!(!e.contains("hunter2"), "{e}");
        let ok = PolicyCatalogue::new(state.path(), Some("HTTP://GW:80"));
        let p = ok.load(&id("recommended")).unwrap();
        assert_eq!(
            p.intent(Profile::Recommended).gateway_base_url.as_deref(),
            Some("http://gw")
        );
    }

    #[test]
    fn a_place_in_a_document_is_a_line_and_a_key_never_a_value() {
        let text =
            "display_name = \"T\"\ngateway_base_url = \"https://u:hunter2secret@gw\"\n[x y]\n";
        let at = text.find("https").unwrap();
        assert_eq!(place(text, at), "line 2 (gateway_base_url)");
        assert_eq!(place(text, text.find("[x").unwrap()), "line 3");
        assert_eq!(place(text, 0), "line 1 (display_name)");
        assert_eq!(place(text, usize::MAX), "line 4");
    }

    #[test]
    fn a_document_loads_and_a_broken_one_is_unloadable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("team.toml"),
            "display_name = \"Team\"\ngateway_base_url = \"http://gw\"\nhook_command = \"aa-hook\"\n",
        )
        .unwrap();
        let p = load(dir.path(), &id("team"), None).unwrap();
        assert_eq!(p.reference().display_name.as_str(), "Team");
        assert_eq!(
            p.intent(Profile::ObserveOnly).hook_command,
            None,
            "observe_only installs no hook"
        );
        assert_eq!(
            p.intent(Profile::Recommended).hook_command.as_deref(),
            Some("aa-hook")
        );
        std::fs::write(dir.path().join("bad.toml"), "gateway_base_url = [\n").unwrap();
        assert!(matches!(
            load(dir.path(), &id("bad"), None),
            Err(ProfileError::Unloadable { .. })
        ));
        std::fs::write(dir.path().join("odd.toml"), "surprise = 1\n").unwrap();
        assert!(matches!(
            load(dir.path(), &id("odd"), None),
            Err(ProfileError::Unloadable { .. })
        ));
    }
}
