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
    EditTemplate, Literal, Mechanism, MechanismSupport, PathBase, RuleShape, RuleWriting,
    SettingsFile, SettingsFormat, Strength, ToolDescriptor, ValueTemplate,
};
use super::rule::{identifier, DenyRule};
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
    /// What the tool must not do, in the tool-neutral vocabulary; each descriptor writes
    /// them in its own syntax or reports them not enforceable.
    pub deny: Vec<DenyRule>,
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
            Mechanism::ToolActionApproval => !self.deny.is_empty() || self.require_approval,
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

/// One key to set in the settings document, as the engine renders it: with its mode, the
/// capability it realises and its plan step kind. The backend turns it into the settings
/// editor's [`KeyEdit`](crate::edit::KeyEdit) when it applies it.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedEdit {
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
    /// Whether the descriptor declares the key's value a name, never a secret.
    pub holds_no_secret: bool,
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

/// How one of the intent's deny rules comes out for this tool and scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleOutcome {
    /// Written in the tool's own syntax, held with this strength.
    Written(Strength),
    /// The tool has no way to express it here: nothing was written for it.
    NotEnforceable,
}

/// The report for one of the intent's deny rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleReport {
    /// The rule (a policy value: it never crosses the wire; sentences name its kind).
    pub rule: DenyRule,
    /// Its position in the intent's deny list, counted from 1.
    pub position: usize,
    /// What the engine could do with it.
    pub outcome: RuleOutcome,
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
    pub edits: Vec<RenderedEdit>,
    /// One report per requested mechanism.
    pub reports: Vec<MechanismReport>,
    /// One report per deny rule of the intent, in its order (each not enforceable when the
    /// tool has no tool-action approval at this scope at all).
    pub rules: Vec<RuleReport>,
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
/// Renders `intent` for `descriptor` at `scope`, with the keys the tool at `version` reads
/// (`None`: the version is unknown, and the newest release's keys are written).
///
/// `home` and `project` are explicit: nothing is read from the environment or the working
/// directory (spec §4: the settings scope is never inferred from a working directory).
pub fn render(
    descriptor: &ToolDescriptor,
    intent: &IntegrationIntent,
    scope: SettingsScope,
    home: &Path,
    project: Option<&Path>,
    version: Option<&semver::Version>,
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
        rules: Vec::new(),
        warnings: descriptor
            .warnings
            .iter()
            .filter(|w| w.scopes.contains(scope) && (!w.when_denying || !intent.deny.is_empty()))
            .map(|w| w.text.to_owned())
            .collect(),
    };
    let at = Where { scope, version };
    for mechanism in Mechanism::ALL {
        if intent.requests(mechanism, scope) {
            render_mechanism(descriptor, mechanism, intent, at, &mut rendered);
        }
    }
    rendered.edits = merged(std::mem::take(&mut rendered.edits));
    Ok(rendered)
}

/// `edits` with each path once, where it first appears: two lists one capability adds to
/// one path become one list (each entry once), and of two values for one key the later wins
/// (a descriptor lists the stricter template last: a deny rule after the approval default it
/// refines). Lists that two capabilities add to one path stay apart, one edit each (e.g.
/// Aider's `set-env`, which holds the gateway's and the proxy's entries): each capability
/// keeps its own plan step, and its entries are added and taken out on their own.
fn merged(edits: Vec<RenderedEdit>) -> Vec<RenderedEdit> {
    let mut out: Vec<RenderedEdit> = Vec::with_capacity(edits.len());
    for edit in edits {
        match out.iter_mut().find(|e| {
            e.path == edit.path
                && e.mode == edit.mode
                && (edit.mode == EditMode::Replace || e.capability == edit.capability)
        }) {
            Some(first) => match (&mut first.value, edit.value, edit.mode) {
                (Value::Array(items), Value::Array(more), EditMode::AppendToList) => {
                    for item in more {
                        if !items.contains(&item) {
                            items.push(item);
                        }
                    }
                }
                (slot, value, _) => *slot = value,
            },
            None => out.push(edit),
        }
    }
    out
}

/// The scope and tool version a rendering is for.
#[derive(Clone, Copy)]
struct Where<'a> {
    scope: SettingsScope,
    version: Option<&'a semver::Version>,
}

impl Where<'_> {
    /// Whether the tool reads `template`'s key here.
    fn reads(&self, template: &EditTemplate) -> bool {
        template.scopes.contains(self.scope) && template.versions.include(self.version)
    }
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
    at: Where<'_>,
    out: &mut RenderedIntegration,
) {
    let capability = mechanism.capability();
    let outcome = match render_edits(descriptor, mechanism, intent, at) {
        Ok(rendered) => {
            out.edits.extend(rendered.edits);
            out.warnings.extend(rendered.warnings);
            out.rules.extend(rendered.rules);
            rendered.outcome
        }
        // Surfaced at plan time in the plan's `unsupported` list, never a run-time failure.
        Err(reason) => {
            if mechanism == Mechanism::ToolActionApproval {
                out.rules
                    .extend(rule_reports(intent, &Inputs::new(intent.deny.len())));
            }
            MechanismOutcome::Unsupported { reason }
        }
    };
    out.reports.push(MechanismReport {
        capability,
        outcome,
    });
}

/// What one requested mechanism renders to.
struct MechanismRendering {
    outcome: MechanismOutcome,
    edits: Vec<RenderedEdit>,
    warnings: Vec<String>,
    rules: Vec<RuleReport>,
}

/// The outcome, edits, warnings and rule reports for one requested mechanism, or the
/// user-facing reason it cannot be rendered at this scope.
fn render_edits(
    descriptor: &ToolDescriptor,
    mechanism: Mechanism,
    intent: &IntegrationIntent,
    at: Where<'_>,
) -> Result<MechanismRendering, String> {
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
        return Ok(MechanismRendering {
            outcome,
            edits: Vec::new(),
            warnings: Vec::new(),
            rules: Vec::new(),
        });
    }
    let templates = support.edits();
    let scope = at.scope;
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
    let mut used = Inputs::new(intent.deny.len());
    let mut edits = Vec::new();
    for template in templates.iter().filter(|t| at.reads(t)) {
        let mode = edit_mode(template.value);
        for (path, value) in fill(template, intent, &mut used) {
            edits.push(RenderedEdit {
                path,
                value,
                mode,
                capability,
                action_kind,
                holds_no_secret: template.holds_no_secret,
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
    let rules = if mechanism == Mechanism::ToolActionApproval {
        rule_reports(intent, &used)
    } else {
        Vec::new()
    };
    let warnings = unrendered_warnings(descriptor, mechanism, intent, &used);
    Ok(MechanismRendering {
        outcome,
        edits,
        warnings,
        rules,
    })
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
        ValueTemplate::HookEntries(_)
        | ValueTemplate::GatewayObjects(_)
        | ValueTemplate::GatewayEntries(_)
        | ValueTemplate::ProxyEntries(_)
        | ValueTemplate::ApprovalEntries {
            shape: RuleShape::ListItem | RuleShape::ListObject,
            ..
        }
        | ValueTemplate::McpDeny {
            shape: RuleShape::ListItem | RuleShape::ListObject,
            ..
        }
        | ValueTemplate::DenyRules {
            shape: RuleShape::ListItem | RuleShape::ListObject,
            ..
        } => EditMode::AppendToList,
        ValueTemplate::GatewayBaseUrl
        | ValueTemplate::ProxyUrl
        | ValueTemplate::HookCommand
        | ValueTemplate::HookArgv
        | ValueTemplate::McpDeny {
            shape: RuleShape::ObjectKey(_) | RuleShape::Flag(_),
            ..
        }
        | ValueTemplate::DenyRules {
            shape: RuleShape::ObjectKey(_) | RuleShape::Flag(_),
            ..
        }
        | ValueTemplate::ApprovalEntries {
            shape: RuleShape::ObjectKey(_) | RuleShape::Flag(_),
            ..
        }
        | ValueTemplate::WhenApprovalRequired(_)
        | ValueTemplate::WhenDenying(_)
        | ValueTemplate::Always(_) => EditMode::Replace,
    }
}

/// Which parts of the intent a mechanism's templates consumed.
struct Inputs {
    /// Per deny rule of the intent: the strongest way it was written, if any.
    rules: Vec<Option<Strength>>,
    approval: bool,
}

impl Inputs {
    fn new(rules: usize) -> Inputs {
        Inputs {
            rules: vec![None; rules],
            approval: false,
        }
    }

    fn wrote_rule(&mut self, index: usize, strength: Strength) {
        let slot = &mut self.rules[index];
        *slot = (*slot).max(Some(strength));
    }
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
        ValueTemplate::GatewayObjects(entries) => {
            intent.gateway_base_url.as_deref().map_or(vec![], |u| {
                let value = |name: &str| (name == "url").then(|| u.to_owned());
                at(Value::Array(
                    entries
                        .iter()
                        .filter_map(|e| fill_json(e, &value))
                        .collect(),
                ))
            })
        }
        ValueTemplate::ProxyUrl => intent.proxy_url.as_deref().map_or(vec![], |u| at(json!(u))),
        ValueTemplate::HookCommand => hook.map_or(vec![], |c| at(json!(c))),
        ValueTemplate::HookArgv => hook.map_or(vec![], |c| at(json!([c]))),
        ValueTemplate::HookEntries(entries) => hook.map_or(vec![], |c| {
            let value = |name: &str| (name == "command").then(|| c.to_owned());
            let filled: Vec<Value> = entries
                .iter()
                .filter_map(|e| fill_json(e, &value))
                .collect();
            at(Value::Array(filled))
        }),
        ValueTemplate::McpDeny { entries, shape } => {
            let mut filled: Vec<Value> = Vec::new();
            for server in &intent.mcp_deny {
                let value = |name: &str| match name {
                    "server" => Some(server.clone()),
                    "server_ident" => Some(identifier(server)),
                    _ => None,
                };
                for entry in entries.iter().filter_map(|e| fill_entry(e, shape, &value)) {
                    if !filled.contains(&entry) {
                        filled.push(entry);
                    }
                }
            }
            shaped(t.path, shape, filled)
        }
        ValueTemplate::DenyRules { rules, shape } => shaped(
            t.path,
            shape,
            rule_entries(rules, shape, &intent.deny, used),
        ),
        ValueTemplate::GatewayEntries(entries) => intent
            .gateway_base_url
            .as_deref()
            .map_or(vec![], |u| at(url_entries(entries, u))),
        ValueTemplate::ProxyEntries(entries) => intent
            .proxy_url
            .as_deref()
            .map_or(vec![], |u| at(url_entries(entries, u))),
        ValueTemplate::WhenApprovalRequired(l) if intent.require_approval => {
            used.approval = true;
            at(literal(l))
        }
        ValueTemplate::ApprovalEntries { entries, shape } if intent.require_approval => {
            used.approval = true;
            let filled = entries
                .iter()
                .filter_map(|e| fill_entry(e, shape, &|_| None))
                .collect();
            shaped(t.path, shape, filled)
        }
        ValueTemplate::WhenDenying(l) if !intent.deny.is_empty() => at(literal(l)),
        ValueTemplate::WhenApprovalRequired(_)
        | ValueTemplate::ApprovalEntries { .. }
        | ValueTemplate::WhenDenying(_) => vec![],
        ValueTemplate::Always(l) => at(literal(l)),
    }
}

/// `entries` as one list of strings, each with `{url}` replaced by `url`.
fn url_entries(entries: &[&str], url: &str) -> Value {
    let value = |name: &str| (name == "url").then(|| url.to_owned());
    Value::Array(
        entries
            .iter()
            .filter_map(|e| fill_text(e, &value).map(Value::String))
            .collect(),
    )
}

/// The entries `writings` give the intent's deny rules, in rule order and without repeats;
/// each rule that gets one is marked written in `used`.
fn rule_entries(
    writings: &[RuleWriting],
    shape: RuleShape,
    deny: &[DenyRule],
    used: &mut Inputs,
) -> Vec<Value> {
    let mut entries: Vec<Value> = Vec::new();
    for (index, rule) in deny.iter().enumerate() {
        for writing in writings.iter().filter(|w| w.kind == rule.kind()) {
            let templates = if rule.is_narrowed() {
                writing.narrowed
            } else {
                writing.every
            };
            let mut wrote = false;
            for filled in templates
                .iter()
                .filter_map(|t| fill_entry(t, shape, &|name| rule.placeholder(name)))
            {
                wrote = true;
                if !entries.contains(&filled) {
                    entries.push(filled);
                }
            }
            if wrote {
                used.wrote_rule(index, writing.strength);
            }
        }
    }
    entries
}

/// `template` with each `{name}` (lowercase letters and `_`) replaced by `value(name)`;
/// `None` when a name has no value. Other braces (JSON's) are copied through. Values are
/// inserted, never scanned again.
fn fill_text(template: &str, value: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}').map(|c| open + c);
        let name = close.map(|c| &rest[open + 1..c]);
        match (close, name) {
            (Some(close), Some(name))
                if !name.is_empty()
                    && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') =>
            {
                out.push_str(&rest[..open]);
                out.push_str(&value(name)?);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// The JSON `template` with placeholders filled in its strings (so a value holding quotes
/// or backslashes stays one string); `None` when a placeholder has no value or the
/// template is not JSON (a descriptor bug a test catches).
fn fill_json(template: &str, value: &dyn Fn(&str) -> Option<String>) -> Option<Value> {
    fn walk(v: Value, value: &dyn Fn(&str) -> Option<String>) -> Option<Value> {
        Some(match v {
            Value::String(s) => Value::String(fill_text(&s, value)?),
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|i| walk(i, value))
                    .collect::<Option<_>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| walk(v, value).map(|v| (k, v)))
                    .collect::<Option<_>>()?,
            ),
            other => other,
        })
    }
    walk(serde_json::from_str(template).ok()?, value)
}

/// One entry of `shape` from its template: JSON for [`RuleShape::ListObject`], text
/// otherwise.
fn fill_entry(
    template: &str,
    shape: RuleShape,
    value: &dyn Fn(&str) -> Option<String>,
) -> Option<Value> {
    match shape {
        RuleShape::ListObject => fill_json(template, value),
        _ => fill_text(template, value).map(Value::String),
    }
}

/// The edits that put `entries` at `path` in `shape` (none when there are no entries).
fn shaped(path: &[&str], shape: RuleShape, entries: Vec<Value>) -> Vec<(Vec<String>, Value)> {
    if entries.is_empty() {
        return Vec::new();
    }
    match shape {
        RuleShape::ListItem | RuleShape::ListObject => {
            vec![(owned_path(path), Value::Array(entries))]
        }
        RuleShape::ObjectKey(l) => entries
            .into_iter()
            .filter_map(|key| {
                let mut at = owned_path(path);
                at.push(key.as_str()?.to_owned());
                Some((at, literal(l)))
            })
            .collect(),
        RuleShape::Flag(l) => vec![(owned_path(path), literal(l))],
    }
}

/// One report per deny rule of the intent: written (and how strongly) or not enforceable.
fn rule_reports(intent: &IntegrationIntent, used: &Inputs) -> Vec<RuleReport> {
    intent
        .deny
        .iter()
        .zip(&used.rules)
        .enumerate()
        .map(|(index, (rule, strength))| RuleReport {
            rule: rule.clone(),
            position: index + 1,
            outcome: strength.map_or(RuleOutcome::NotEnforceable, RuleOutcome::Written),
        })
        .collect()
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
    if intent.require_approval && !used.approval {
        warnings.push(format!(
            "{name} has no settings key that forces approval at this scope; approval keeps the tool's default"
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::descriptor::{edit as template, ValueTemplate, HOOK_MATCHER_GROUP};

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_hook_command_with_quotes_and_backslashes_stays_one_json_string() {
        let command = r#"/opt/aa hook --tag "a\b" {x}"#;
        let value = |name: &str| (name == "command").then(|| command.to_owned());
        let filled = fill_json(HOOK_MATCHER_GROUP[0], &value).unwrap();
        assert_eq!(filled["hooks"][0]["command"], json!(command));
        assert_eq!(filled["matcher"], json!("*"));
    }

    #[test]
    fn a_template_naming_a_value_the_rule_lacks_is_not_used_and_braces_pass_through() {
        assert_eq!(fill_text("Bash({cmd}:*)", &none), None);
        assert_eq!(fill_text("Bash", &none).as_deref(), Some("Bash"));
        assert_eq!(
            fill_text("{not a name} {}", &none).as_deref(),
            Some("{not a name} {}")
        );
        let cmd = |n: &str| (n == "cmd").then(|| "git push".to_owned());
        assert_eq!(fill_text("{cmd} *", &cmd).as_deref(), Some("git push *"));
    }

    #[test]
    fn every_json_template_of_every_descriptor_parses() {
        for tool in crate::adapters::all() {
            for support in crate::adapters::Mechanism::ALL.map(|m| tool.mechanisms.get(m)) {
                for template in support.edits() {
                    let json_entries: Vec<&str> = match template.value {
                        ValueTemplate::HookEntries(entries)
                        | ValueTemplate::GatewayObjects(entries) => entries.to_vec(),
                        ValueTemplate::McpDeny {
                            entries,
                            shape: RuleShape::ListObject,
                        } => entries.to_vec(),
                        ValueTemplate::ApprovalEntries {
                            entries,
                            shape: RuleShape::ListObject,
                        } => entries.to_vec(),
                        ValueTemplate::DenyRules {
                            rules,
                            shape: RuleShape::ListObject,
                        } => rules
                            .iter()
                            .flat_map(|r| r.every.iter().chain(r.narrowed))
                            .copied()
                            .collect(),
                        _ => Vec::new(),
                    };
                    for entry in json_entries {
                        assert!(
                            serde_json::from_str::<Value>(entry).is_ok(),
                            "{}: {entry}",
                            tool.id
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn gateway_entries_and_a_servers_identifier_are_filled_into_their_templates() {
        use crate::adapters::descriptor::edit;
        let intent = IntegrationIntent {
            gateway_base_url: Some(r#"http://127.0.0.1:4000/"gw""#.into()),
            mcp_deny: vec!["my-server".into()],
            ..IntegrationIntent::default()
        };
        let provider = edit(
            &["providers"],
            ValueTemplate::GatewayObjects(&[r#"{"name": "p", "api_base": "{url}"}"#]),
        );
        assert_eq!(
            fill(&provider, &intent, &mut Inputs::new(0)),
            vec![(
                vec!["providers".to_owned()],
                json!([{"name": "p", "api_base": r#"http://127.0.0.1:4000/"gw""#}])
            )]
        );
        assert_eq!(edit_mode(provider.value), EditMode::AppendToList);
        let without = IntegrationIntent::default();
        assert!(fill(&provider, &without, &mut Inputs::new(0)).is_empty());
        let servers = edit(
            &["disabled_tools"],
            ValueTemplate::McpDeny {
                entries: &["{server_ident}_*"],
                shape: RuleShape::ListItem,
            },
        );
        assert_eq!(
            fill(&servers, &intent, &mut Inputs::new(0)),
            vec![(vec!["disabled_tools".to_owned()], json!(["my_server_*"]))]
        );
    }

    #[test]
    fn two_edits_of_one_path_become_one_where_the_first_stood() {
        let edit = |path: &[&str], value: Value, mode| RenderedEdit {
            path: owned_path(path),
            value,
            mode,
            capability: Capability::ToolActionApproval,
            action_kind: ActionKind::WriteManagedSettings,
            holds_no_secret: false,
        };
        let out = merged(vec![
            edit(&["p", "*"], json!("ask"), EditMode::Replace),
            edit(&["list"], json!(["a"]), EditMode::AppendToList),
            edit(&["p", "curl *"], json!("deny"), EditMode::Replace),
            edit(&["p", "*"], json!("deny"), EditMode::Replace),
            edit(&["list"], json!(["a", "b"]), EditMode::AppendToList),
        ]);
        let shown: Vec<(String, Value)> = out
            .iter()
            .map(|e| (e.path.join("."), e.value.clone()))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("p.*".to_owned(), json!("deny")),
                ("list".to_owned(), json!(["a", "b"])),
                ("p.curl *".to_owned(), json!("deny")),
            ]
        );
    }

    #[test]
    fn lists_two_capabilities_add_to_one_path_stay_apart_while_one_capabilitys_merge() {
        let edit = |capability, value: Value| RenderedEdit {
            path: owned_path(&["set-env"]),
            value,
            mode: EditMode::AppendToList,
            capability,
            action_kind: ActionKind::ConfigureProxy,
            holds_no_secret: false,
        };
        let out = merged(vec![
            edit(Capability::ModelGatewayBaseUrl, json!(["A=1"])),
            edit(Capability::HttpProxy, json!(["P=1"])),
            edit(Capability::ModelGatewayBaseUrl, json!(["B=1", "A=1"])),
        ]);
        let shown: Vec<(Capability, Value)> = out
            .iter()
            .map(|e| (e.capability, e.value.clone()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (Capability::ModelGatewayBaseUrl, json!(["A=1", "B=1"])),
                (Capability::HttpProxy, json!(["P=1"])),
            ]
        );
    }

    #[test]
    fn url_and_approval_entries_are_written_only_when_the_intent_asks_for_them() {
        let path = vec!["list".to_owned()];
        let routed = IntegrationIntent {
            gateway_base_url: Some("http://gw".into()),
            ..IntegrationIntent::default()
        };
        let mut used = Inputs::new(0);
        let gateway = template(
            &["list"],
            ValueTemplate::GatewayEntries(&["OPENAI_BASE_URL={url}", "X={url}/v1"]),
        );
        assert_eq!(
            fill(&gateway, &routed, &mut used),
            vec![(
                path.clone(),
                json!(["OPENAI_BASE_URL=http://gw", "X=http://gw/v1"])
            )]
        );
        let proxy = template(
            &["list"],
            ValueTemplate::ProxyEntries(&["HTTPS_PROXY={url}"]),
        );
        assert!(fill(&proxy, &routed, &mut used).is_empty());

        let ask = template(
            &["list"],
            ValueTemplate::ApprovalEntries {
                entries: &[r#"{"tool": "*", "action": "ask"}"#],
                shape: RuleShape::ListObject,
            },
        );
        assert!(fill(&ask, &routed, &mut used).is_empty());
        assert!(!used.approval, "nothing asked, nothing used");
        let strict = IntegrationIntent {
            require_approval: true,
            ..routed
        };
        assert_eq!(
            fill(&ask, &strict, &mut used),
            vec![(path, json!([{"tool": "*", "action": "ask"}]))]
        );
        assert!(used.approval, "the approval entry answers the intent");
        assert_eq!(edit_mode(ask.value), EditMode::AppendToList);
    }
}
