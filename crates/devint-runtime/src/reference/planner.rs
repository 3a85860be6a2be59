//! `plan`: a dry run that mutates nothing. Renders the profile's intent through the tool's
//! adapter, prepares the edit against the settings file as it is now, and stores the plan
//! bound to the authoring token.
//!
//! Owns plan validation (one scope, unique step ids, privileged steps only with consent
//! given at plan time and each with its own consent prompt, the planned level within the
//! profile's cap). It must never write a file and never put a settings value in the view.

use super::convert::{artifact, key_name};
use super::enforcement::Holding;
use super::plans::{InstallPlan, PlanBody, StoredPlan};
use super::profile::{self, LoadedProfile};
use super::receipt::{OwnedKey, ProfileRecord};
use super::runtime::ReferenceRuntime;
use super::target::{self, Current};
use super::text::{refuse, say};
use crate::adapters::{self, MechanismOutcome, ToolDescriptor};
use crate::edit::EditError;
use devint::backend::LifecycleError;
use devint::backend::ToolAuthorization;
use devint::verbs::{
    ActionKind, CapabilityName, Digest, Level, PlanArgs, PlanId, PlanView, Privilege, Requirement,
    SettingsScope, StepId, StepView, UnsupportedMechanismView,
};
use devint::version::LIFECYCLE_SCHEMA_VERSION;

/// A plan being drawn up: the dry run's result before it is stored.
struct PlanDraft {
    /// The keys apply will own.
    keys: Vec<OwnedKey>,
    /// The digest of the text apply will write (`None`: it cannot write).
    post_digest: Option<String>,
    /// Warnings for the view.
    warnings: Vec<String>,
    /// Why apply must refuse.
    blocked: Option<String>,
    /// Why the file's format cannot be edited (every mechanism is then unsupported).
    uneditable: Option<String>,
}

/// The unsupported list: mechanisms the adapter marks unsupported, and every mechanism when
/// the file cannot be edited.
fn unsupported(
    rendered: &adapters::RenderedIntegration,
    uneditable: Option<&str>,
) -> Vec<UnsupportedMechanismView> {
    rendered
        .reports
        .iter()
        .filter_map(|r| {
            match (&r.outcome, uneditable) {
                (MechanismOutcome::Unsupported { reason }, _) => Some(reason.as_str()),
                (_, Some(reason)) => Some(reason),
                (_, None) => None,
            }
            .map(|reason| UnsupportedMechanismView {
                capability: r.capability,
                reason: say(reason),
            })
        })
        .collect()
}

impl ReferenceRuntime {
    pub(super) fn descriptor(
        &self,
        auth: &ToolAuthorization,
    ) -> Result<&'static ToolDescriptor, LifecycleError> {
        adapters::find(auth.tool().as_str()).ok_or(LifecycleError::UnknownTool)
    }

    pub(super) fn load_profile(&self, args: &PlanArgs) -> Result<LoadedProfile, LifecycleError> {
        let id = args
            .policy_profile_id
            .clone()
            .unwrap_or_else(|| profile::default_id(args.profile));
        profile::load(
            &self.layout.profiles(),
            &id,
            self.config.gateway_base_url.as_ref(),
        )
        .map_err(|e| {
            refuse(
                e.to_string(),
                "name a built-in (recommended, strict, observe_only) or a profile in the runtime's profiles directory",
            )
        })
    }

    pub(super) fn do_plan(
        &self,
        auth: &ToolAuthorization,
        args: &PlanArgs,
    ) -> Result<PlanView, LifecycleError> {
        let descriptor = self.descriptor(auth)?;
        let loaded = self.load_profile(args)?;
        let intent = loaded.intent(args.profile);
        let listing = self.detector.listing(descriptor);
        let rendered = self.render(descriptor, &intent, args, listing.detected.version.as_ref())?;
        let holding = Holding::of(&rendered);
        let keys = target::owned_keys(&rendered)
            .map_err(|e| refuse(e.to_string(), "report this adapter key as a bug"))?;
        let current = Current::read(&rendered.file)
            .map_err(|e| super::unusable::read_refusal(&e, "plan again"))?;
        super::unusable::check_parses(&current, rendered.format)?;
        let mut prepared = self.prepare_plan(descriptor, &rendered, &current, keys);
        let landing = target::Landing::of(&rendered.file);
        self.judge_target(descriptor, &rendered, &landing, args, &mut prepared)?;
        if intent.gateway_base_url.is_none() && loaded.document.gateway_base_url.is_none() {
            prepared.warnings.push(
                "the policy profile names no gateway base URL, so model traffic is not routed to a gateway".into(),
            );
        }
        if prepared.keys.is_empty() && prepared.uneditable.is_none() {
            prepared.warnings.push(
                "this profile asks nothing of this tool at this scope; apply would change nothing"
                    .into(),
            );
        }
        prepared
            .warnings
            .extend(holding.warnings(descriptor.display_name, listing.adapter_ceiling));
        let planned_level = self.planned_level(args, &mut prepared.warnings);
        let steps = self.steps(
            &prepared.keys,
            &rendered,
            &landing,
            prepared.post_digest.as_deref(),
            args,
        )?;
        let unsupported = unsupported(&rendered, prepared.uneditable.as_deref());
        let warnings = prepared.warnings.iter().map(say).collect();
        let plan_id = PlanId::random();
        let body = install_plan(args, &rendered, &loaded, &current, prepared, planned_level);
        self.keep_plan(auth, plan_id.clone(), PlanBody::Install(Box::new(body)));
        Ok(PlanView {
            schema_version: LIFECYCLE_SCHEMA_VERSION,
            plan_id,
            tool_id: auth.tool().clone(),
            profile: args.profile,
            settings_scope: args.scope,
            policy_profile: Some(loaded.reference()),
            planned_level,
            adapter_ceiling: holding.ceiling(listing.adapter_ceiling),
            steps,
            unsupported,
            warnings,
        })
    }

    /// Where the plan will write, judged (spec §6.6: consent names the file really
    /// written): a project-scope target resolving outside the project is refused; any other
    /// write refusal (a hard link) blocks the plan with a warning; a managed file below a
    /// directory other users cannot search is named.
    fn judge_target(
        &self,
        descriptor: &ToolDescriptor,
        rendered: &adapters::RenderedIntegration,
        landing: &target::Landing<'_>,
        args: &PlanArgs,
        prepared: &mut PlanDraft,
    ) -> Result<(), LifecycleError> {
        let project = (args.scope == SettingsScope::Project)
            .then_some(self.config.project_dir.as_deref())
            .flatten();
        if let Some(why) = landing.write_refusal(project) {
            if args.scope == SettingsScope::Project && !why.contains("hard links") {
                return Err(refuse(
                    why,
                    "plan at user scope, or remove the symlink that leaves the project",
                ));
            }
            prepared.warnings.push(why.clone());
            prepared.blocked.get_or_insert(why);
        }
        if rendered.privileged {
            if let Some(dir) =
                super::modes::unreachable_dir(&rendered.file, &self.config.system_root)
            {
                prepared.warnings.push(format!(
                    "{} cannot be searched by other users, so {} running as a user other than root cannot read the managed file below it; devint never changes a directory it did not create: run `chmod o+x {}`",
                    dir.display(),
                    descriptor.display_name,
                    dir.display()
                ));
            }
        }
        Ok(())
    }

    /// Keeps `body` for the call that executes it (this token, this tool, until the plan
    /// TTL) under `id`.
    pub(super) fn keep_plan(&self, auth: &ToolAuthorization, id: PlanId, body: PlanBody) {
        self.plans.insert(
            StoredPlan {
                id,
                tool: auth.tool().clone(),
                token: auth.token_id().clone(),
                expires_at: auth.now().saturating_add(self.config.plan_ttl),
                consumed: false,
                body,
            },
            auth.now(),
        );
    }

    /// The adapter's rendering of the intent at the plan's scope; a privileged host step
    /// without consent given at plan time is refused (§6.6: never implied).
    fn render(
        &self,
        descriptor: &'static ToolDescriptor,
        intent: &adapters::IntegrationIntent,
        args: &PlanArgs,
        version: Option<&semver::Version>,
    ) -> Result<adapters::RenderedIntegration, LifecycleError> {
        let mut rendered = adapters::render(
            descriptor,
            intent,
            args.scope,
            &self.config.home,
            self.config.project_dir.as_deref(),
            version,
        )
        .map_err(|e| refuse(e.to_string(), "plan again with a scope this tool reads"))?;
        if rendered.privileged {
            rendered.file = self.config.host_path(&rendered.file);
        }
        if rendered.privileged && !args.allow_privileged_host_steps {
            return Err(refuse(
                format!(
                    "this plan writes {}, a host-wide file, which is a privileged host step",
                    rendered.file.display()
                ),
                "plan again with allow_privileged_host_steps set if you consent to privileged steps (each is still shown with its own consent prompt)",
            ));
        }
        Ok(rendered)
    }

    /// The dry run of the edit against the file as it is now. What cannot be written is
    /// reported, never left to fail at apply: a format we cannot edit in place blocks the plan
    /// and lists its mechanisms as unsupported; an edit the file cannot take blocks it with a
    /// warning (it is never overwritten). A file that does not parse was refused before.
    fn prepare_plan(
        &self,
        descriptor: &ToolDescriptor,
        rendered: &adapters::RenderedIntegration,
        current: &Current,
        keys: Vec<OwnedKey>,
    ) -> PlanDraft {
        let format = rendered.format;
        let mut draft = PlanDraft {
            keys: Vec::new(),
            post_digest: None,
            warnings: rendered.warnings.clone(),
            blocked: None,
            uneditable: None,
        };
        match target::prepare(format, current, &keys) {
            Ok(prepared) => {
                draft.post_digest = Some(super::receipt::text_digest(&prepared.text));
                draft.keys = prepared.keys;
            }
            Err(e @ EditError::UnsupportedFormat { .. }) => {
                let reason = format!(
                    "{} keeps these settings in {}: {e}",
                    descriptor.display_name,
                    artifact(&rendered.file, &self.config.home)
                        .map_or_else(|| "its settings file".into(), |a| a.as_str().to_owned())
                );
                draft.blocked = Some(reason.clone());
                draft.uneditable = Some(reason);
            }
            Err(e) => {
                draft.warnings.push(format!("{e}"));
                draft.blocked = Some(e.to_string());
                draft.keys = keys;
            }
        }
        draft
    }

    /// The requested level within the profile's cap (with a warning when capped, and when
    /// no probe can verify above `integrated`).
    fn planned_level(&self, args: &PlanArgs, warnings: &mut Vec<String>) -> Level {
        let cap = profile::level_cap(args.profile);
        let planned_level = if args.requested_level > cap {
            warnings.push(format!(
                "the {} profile caps the planned level at {}",
                args.profile.token(),
                cap.token()
            ));
            cap
        } else {
            args.requested_level
        };
        if planned_level >= Level::GatewayProtected && self.config.probe.is_none() {
            warnings.push(
                "no protection probe is configured, so this runtime can verify at most integrated"
                    .into(),
            );
        }
        planned_level
    }

    /// One step per capability, in render order.
    fn steps(
        &self,
        keys: &[OwnedKey],
        rendered: &adapters::RenderedIntegration,
        landing: &target::Landing<'_>,
        post_digest: Option<&str>,
        args: &PlanArgs,
    ) -> Result<Vec<StepView>, LifecycleError> {
        let mut groups: Vec<(CapabilityName, ActionKind, Vec<&OwnedKey>)> = Vec::new();
        for key in keys {
            match groups.iter_mut().find(|g| g.0 == key.capability) {
                Some(g) => g.2.push(key),
                None => groups.push((key.capability, key.action_kind, vec![key])),
            }
        }
        let shown = artifact(landing.path(), &self.config.home);
        let mut file = shown
            .as_ref()
            .map(|a| a.as_str().to_owned())
            .unwrap_or_else(|| "the settings file".into());
        // Consent names the file really written: a symlinked settings file shows its target.
        if landing.real() != landing.path() {
            if let Some(a) = artifact(landing.real(), &self.config.home) {
                file = format!("{file} → {}", a.as_str());
            }
        }
        let privilege = if rendered.privileged {
            Privilege::PrivilegedHost
        } else {
            Privilege::User
        };
        let mut seen = Vec::new();
        let mut steps = Vec::new();
        for (capability, action, group) in groups {
            let id = StepId::parse(capability.token())
                .map_err(|e| refuse(e.to_string(), "report this adapter capability as a bug"))?;
            // Validation: step ids are unique within a plan.
            if seen.contains(&id) {
                return Err(refuse(
                    "two plan steps share an id",
                    "report this adapter as a bug",
                ));
            }
            seen.push(id.clone());
            let names: Vec<_> = group.iter().filter_map(|k| key_name(&k.path)).collect();
            let listed = names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            let consent_prompt = rendered.privileged.then(|| {
                say(format!(
                    "Consent to this step on its own: it writes {listed} into {file}, a host-wide file that needs administrator rights"
                ))
            });
            steps.push(StepView {
                id,
                summary: say(format!("Set {listed} in {file} ({capability})")),
                action_kind: action,
                requirement: if capability == CapabilityName::ModelGatewayBaseUrl {
                    Requirement::Required
                } else {
                    Requirement::Optional
                },
                privilege,
                consent_prompt,
                settings_scope: args.scope,
                managed_keys: names,
                artifact_paths: shown.iter().cloned().collect(),
                content_sha256: post_digest.and_then(|d| Digest::parse(d).ok()),
                reversible: true,
            });
        }
        Ok(steps)
    }
}

/// The install plan `apply` will execute: what the plan read and rendered, bound to the
/// profile it was made with.
fn install_plan(
    args: &PlanArgs,
    rendered: &adapters::RenderedIntegration,
    loaded: &LoadedProfile,
    current: &Current,
    prepared: PlanDraft,
    planned_level: Level,
) -> InstallPlan {
    InstallPlan {
        scope: args.scope,
        target: rendered.file.clone(),
        format: rendered.format,
        keys: prepared.keys,
        pre_digest: current.digest(),
        post_digest: prepared.post_digest,
        profile: ProfileRecord {
            profile: args.profile,
            policy_id: loaded.id.clone(),
            display_name: loaded.reference().display_name.as_str().to_owned(),
            digest: loaded.digest.clone(),
        },
        planned_level,
        blocked: prepared.blocked,
    }
}
