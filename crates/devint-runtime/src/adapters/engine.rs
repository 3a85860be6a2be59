//! The engine: (descriptor, integration intent, scope) → the keys to write in one settings
//! file, plus a per-mechanism report (`native`, `adapted`, `unsupported` with a reason).
//!
//! Owns rendering only. Must never perform IO (the lifecycle backend reads and writes the
//! files), never put an intent value anywhere but the returned edits (those values never
//! cross the wire), and never turn a mechanism the descriptor marks unsupported into a
//! run-time failure: it is reported here, at plan time.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::descriptor::{
    EditTemplate, Literal, Mechanism, MechanismSupport, PathBase, SettingsFile, SettingsFormat,
    ToolDescriptor, ValueTemplate,
};
use super::vocabulary::{ActionKind, Capability, SettingsScope};

/// The trusted-side semantic mechanism set derived from a policy profile. Its values are
/// written into settings files and never cross the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IntegrationIntent {
    /// Route model traffic to this gateway base URL.
    pub gateway_base_url: Option<String>,
    /// Route HTTP(S) traffic through this proxy.
    pub proxy_url: Option<String>,
    /// Run this command before tool actions.
    pub hook_command: Option<String>,
    /// MCP servers to deny, by name.
    pub mcp_deny: Vec<String>,
    /// Tool patterns to deny, in the tool's own pattern dialect.
    pub deny_tool_patterns: Vec<String>,
    /// Require approval before tool actions.
    pub require_approval: bool,
}

impl IntegrationIntent {
    /// Whether the intent asks anything of `mechanism` at `scope`.
    pub fn requests(&self, mechanism: Mechanism, scope: SettingsScope) -> bool {
        match mechanism {
            Mechanism::ModelGatewayBaseUrl => self.gateway_base_url.is_some(),
            Mechanism::HttpProxy => self.proxy_url.is_some(),
            Mechanism::Hooks => self.hook_command.is_some(),
            Mechanism::McpGovernance => !self.mcp_deny.is_empty(),
            Mechanism::ToolActionApproval => {
                !self.deny_tool_patterns.is_empty() || self.require_approval
            }
            Mechanism::ManagedSettings => scope == SettingsScope::Managed,
        }
    }
}

/// How an edit combines with what the user already has at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EditMode {
    /// Set the value at the path, displacing what was there (restored on removal).
    Replace,
    /// The value is a list: add each element to the list at the path (creating it if
    /// missing), keeping the user's own elements; removal takes out only these elements.
    /// Used for hook lists and deny lists, so integrating never drops a user's own entry.
    AppendToList,
}

/// One key to set in the settings document.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyEdit {
    /// Key path from the document root (a segment may contain dots).
    pub path: Vec<String>,
    /// The value to set at that path (see `mode`).
    pub value: Value,
    /// How the value combines with the user's existing value.
    pub mode: EditMode,
    /// The capability this edit realises.
    pub capability: Capability,
    /// The plan step kind (spec §4 `StepView.action_kind`).
    pub action_kind: ActionKind,
}

/// How one requested mechanism comes out for this tool and scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MechanismOutcome {
    /// Written with the tool's own documented keys.
    Native,
    /// Realised through a neighbouring surface; `how` says which and what is lost.
    Adapted {
        /// A user-facing sentence.
        how: String,
    },
    /// Not possible; surfaced in the plan's `unsupported` list.
    Unsupported {
        /// A user-facing sentence.
        reason: String,
    },
}

/// The report for one requested mechanism.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MechanismReport {
    /// The capability the mechanism realises.
    pub capability: Capability,
    /// What the engine could do.
    pub outcome: MechanismOutcome,
}

/// Everything the lifecycle backend needs to plan one tool at one scope.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedIntegration {
    /// The tool id.
    pub tool_id: &'static str,
    /// The scope rendered.
    pub scope: SettingsScope,
    /// The settings file to edit.
    pub file: PathBuf,
    /// Its format.
    pub format: SettingsFormat,
    /// Whether writing it needs privilege (an absolute, administrator-managed path).
    pub privileged: bool,
    /// The keys to set, in mechanism order.
    pub edits: Vec<KeyEdit>,
    /// One report per requested mechanism.
    pub reports: Vec<MechanismReport>,
    /// Caveats for this scope (folder trust, unrendered intent parts).
    pub warnings: Vec<String>,
}

impl RenderedIntegration {
    /// The reports whose outcome is unsupported, as (capability, reason).
    pub fn unsupported(&self) -> impl Iterator<Item = (Capability, &str)> {
        self.reports.iter().filter_map(|r| match &r.outcome {
            MechanismOutcome::Unsupported { reason } => Some((r.capability, reason.as_str())),
            _ => None,
        })
    }
}

/// Why a tool cannot be rendered at a scope at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The tool reads no settings file at that scope.
    #[error("{tool} has no {scope} settings file; choose one of the scopes it reads: {available}")]
    NoSettingsFile {
        /// Tool id.
        tool: &'static str,
        /// Requested scope token.
        scope: &'static str,
        /// Scopes the tool does read, comma-separated.
        available: String,
    },
    /// Project scope was requested without a project directory.
    #[error("{tool}: the project scope needs a project directory; pass one explicitly (it is never inferred from the working directory)")]
    NoProjectDirectory {
        /// Tool id.
        tool: &'static str,
    },
}

// spec[S4-SCOPE-MANDATORY] §4: the scope is passed in, never inferred from a working directory.
/// Renders `intent` for `descriptor` at `scope`.
///
/// `home` and `project` are explicit: nothing is read from the environment or the working
/// directory (spec §4: the settings scope is never inferred from a working directory).
pub fn render(
    descriptor: &ToolDescriptor,
    intent: &IntegrationIntent,
    scope: SettingsScope,
    home: &Path,
    project: Option<&Path>,
) -> Result<RenderedIntegration, RenderError> {
    let settings = descriptor
        .settings_for(scope)
        .ok_or_else(|| RenderError::NoSettingsFile {
            tool: descriptor.id,
            scope: scope.token(),
            available: descriptor
                .settings
                .iter()
                .map(|s| s.scope.token())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    let file = settings_path(descriptor, settings, home, project)?;
    let mut rendered = RenderedIntegration {
        tool_id: descriptor.id,
        scope,
        file,
        format: settings.format,
        privileged: settings.base == PathBase::Absolute,
        edits: Vec::new(),
        reports: Vec::new(),
        warnings: descriptor
            .warnings
            .iter()
            .filter(|w| w.scopes.contains(scope))
            .map(|w| w.text.to_owned())
            .collect(),
    };
    for mechanism in Mechanism::ALL {
        if intent.requests(mechanism, scope) {
            render_mechanism(descriptor, mechanism, intent, scope, &mut rendered);
        }
    }
    Ok(rendered)
}

/// Where `descriptor`'s settings file `settings` is, for `home` and `project` (explicit, as in
/// [`render`]); a host-wide file's path is as the tool reads it, before any system root.
pub fn settings_path(
    descriptor: &ToolDescriptor,
    settings: &SettingsFile,
    home: &Path,
    project: Option<&Path>,
) -> Result<PathBuf, RenderError> {
    Ok(match settings.base {
        PathBase::Home => home.join(settings.path),
        PathBase::Absolute => PathBuf::from(settings.path),
        PathBase::Project => project
            .ok_or(RenderError::NoProjectDirectory {
                tool: descriptor.id,
            })?
            .join(settings.path),
    })
}

fn render_mechanism(
    descriptor: &ToolDescriptor,
    mechanism: Mechanism,
    intent: &IntegrationIntent,
    scope: SettingsScope,
    out: &mut RenderedIntegration,
) {
    let capability = mechanism.capability();
    let outcome = match render_edits(descriptor, mechanism, intent, scope) {
        Ok((outcome, edits, warnings)) => {
            out.edits.extend(edits);
            out.warnings.extend(warnings);
            outcome
        }
        // Surfaced at plan time in the plan's `unsupported` list, never a run-time failure.
        Err(reason) => MechanismOutcome::Unsupported { reason },
    };
    out.reports.push(MechanismReport {
        capability,
        outcome,
    });
}

/// The outcome, edits and warnings for one requested mechanism, or the user-facing reason
/// it cannot be rendered at this scope.
fn render_edits(
    descriptor: &ToolDescriptor,
    mechanism: Mechanism,
    intent: &IntegrationIntent,
    scope: SettingsScope,
) -> Result<(MechanismOutcome, Vec<KeyEdit>, Vec<String>), String> {
    let name = descriptor.display_name;
    let capability = mechanism.capability();
    let support = descriptor.mechanisms.get(mechanism);
    let outcome = match support {
        MechanismSupport::Unsupported { reason } => return Err((*reason).to_owned()),
        MechanismSupport::Native { .. } => MechanismOutcome::Native,
        MechanismSupport::Adapted { how, .. } => MechanismOutcome::Adapted {
            how: (*how).to_owned(),
        },
    };
    if mechanism == Mechanism::ManagedSettings {
        // Honouring the managed file is the whole mechanism; its keys come from the others.
        return Ok((outcome, Vec::new(), Vec::new()));
    }
    let templates = support.edits();
    if !templates.iter().any(|t| t.scopes.contains(scope)) {
        let honoured: Vec<&str> = SettingsScope::ALL
            .iter()
            .copied()
            .filter(|s| templates.iter().any(|t| t.scopes.contains(*s)))
            .map(SettingsScope::token)
            .collect();
        return Err(format!(
            "{name} reads {} only from its {} settings, not from {} settings",
            capability.token(),
            honoured.join(" or "),
            scope.token()
        ));
    }
    let action_kind = action_kind(mechanism);
    let mut used = Inputs::default();
    let mut edits = Vec::new();
    for template in templates.iter().filter(|t| t.scopes.contains(scope)) {
        let mode = edit_mode(template.value);
        for (path, value) in fill(template, intent, &mut used) {
            edits.push(KeyEdit {
                path,
                value,
                mode,
                capability,
                action_kind,
            });
        }
    }
    if edits.is_empty() {
        return Err(format!(
            "{name} has no {} settings key for what this profile asks of {}",
            scope.token(),
            capability.token()
        ));
    }
    let warnings = unrendered_warnings(descriptor, mechanism, intent, &used);
    Ok((outcome, edits, warnings))
}

/// The plan step kind for each mechanism's edits.
pub const fn action_kind(mechanism: Mechanism) -> ActionKind {
    match mechanism {
        Mechanism::ModelGatewayBaseUrl => ActionKind::ConfigureModelGatewayBaseUrl,
        Mechanism::HttpProxy => ActionKind::ConfigureProxy,
        Mechanism::Hooks => ActionKind::InstallHook,
        Mechanism::McpGovernance => ActionKind::ConfigureMcpServers,
        Mechanism::ToolActionApproval | Mechanism::ManagedSettings => {
            ActionKind::WriteManagedSettings
        }
    }
}

/// Lists the user may already populate are appended to, never replaced.
pub const fn edit_mode(value: ValueTemplate) -> EditMode {
    match value {
        ValueTemplate::HookMatcherGroup { .. }
        | ValueTemplate::HookCommandList
        | ValueTemplate::McpDenyNames
        | ValueTemplate::McpDenyServerObjects
        | ValueTemplate::DenyPatterns => EditMode::AppendToList,
        ValueTemplate::GatewayBaseUrl
        | ValueTemplate::ProxyUrl
        | ValueTemplate::HookCommand
        | ValueTemplate::HookArgv
        | ValueTemplate::PerDenyPattern(_)
        | ValueTemplate::WhenApprovalRequired(_)
        | ValueTemplate::Always(_) => EditMode::Replace,
    }
}

/// Which parts of the intent a mechanism's templates consumed.
#[derive(Default)]
struct Inputs {
    deny_patterns: bool,
    approval: bool,
}

fn literal(l: Literal) -> Value {
    match l {
        Literal::Str(s) => json!(s),
        Literal::Bool(b) => json!(b),
        Literal::Int(i) => json!(i),
    }
}

fn owned_path(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| (*s).to_owned()).collect()
}

/// The (path, value) pairs one template yields; empty when its input is missing.
fn fill(
    t: &EditTemplate,
    intent: &IntegrationIntent,
    used: &mut Inputs,
) -> Vec<(Vec<String>, Value)> {
    let at = |v: Value| vec![(owned_path(t.path), v)];
    let hook = intent.hook_command.as_deref();
    match t.value {
        ValueTemplate::GatewayBaseUrl => intent
            .gateway_base_url
            .as_deref()
            .map_or(vec![], |u| at(json!(u))),
        ValueTemplate::ProxyUrl => intent.proxy_url.as_deref().map_or(vec![], |u| at(json!(u))),
        ValueTemplate::HookCommand => hook.map_or(vec![], |c| at(json!(c))),
        ValueTemplate::HookArgv => hook.map_or(vec![], |c| at(json!([c]))),
        ValueTemplate::HookMatcherGroup { matcher } => hook.map_or(vec![], |c| {
            at(json!([{ "matcher": matcher, "hooks": [{ "type": "command", "command": c }] }]))
        }),
        ValueTemplate::HookCommandList => hook.map_or(vec![], |c| at(json!([{ "command": c }]))),
        ValueTemplate::McpDenyNames if !intent.mcp_deny.is_empty() => at(json!(intent.mcp_deny)),
        ValueTemplate::McpDenyServerObjects if !intent.mcp_deny.is_empty() => at(Value::Array(
            intent
                .mcp_deny
                .iter()
                .map(|n| json!({ "serverName": n }))
                .collect(),
        )),
        ValueTemplate::McpDenyNames | ValueTemplate::McpDenyServerObjects => vec![],
        ValueTemplate::DenyPatterns if !intent.deny_tool_patterns.is_empty() => {
            used.deny_patterns = true;
            at(json!(intent.deny_tool_patterns))
        }
        ValueTemplate::PerDenyPattern(l) if !intent.deny_tool_patterns.is_empty() => {
            used.deny_patterns = true;
            intent
                .deny_tool_patterns
                .iter()
                .map(|p| {
                    let mut path = owned_path(t.path);
                    path.push(p.clone());
                    (path, literal(l))
                })
                .collect()
        }
        ValueTemplate::DenyPatterns | ValueTemplate::PerDenyPattern(_) => vec![],
        ValueTemplate::WhenApprovalRequired(l) if intent.require_approval => {
            used.approval = true;
            at(literal(l))
        }
        ValueTemplate::WhenApprovalRequired(_) => vec![],
        ValueTemplate::Always(l) => at(literal(l)),
    }
}

fn unrendered_warnings(
    descriptor: &ToolDescriptor,
    mechanism: Mechanism,
    intent: &IntegrationIntent,
    used: &Inputs,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if mechanism != Mechanism::ToolActionApproval {
        return warnings;
    }
    let name = descriptor.display_name;
    if !intent.deny_tool_patterns.is_empty() && !used.deny_patterns {
        warnings.push(format!(
            "{name} has no settings key for a tool deny list at this scope; {} deny pattern(s) were not written",
            intent.deny_tool_patterns.len()
        ));
    }
    if intent.require_approval && !used.approval {
        warnings.push(format!(
            "{name} has no settings key that forces approval at this scope; approval keeps the tool's default"
        ));
    }
    warnings
}
