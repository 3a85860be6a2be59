//! The engine renders every declared mechanism for every tool and scope, reports what it
//! cannot do with a reason, and capability resolution follows the fail-absent rules.

use std::path::Path;

use devint::verbs::Sentence;
use devint_runtime::adapters::{
    adapter_ceiling, all, find, render, resolve, ActionKind, AdapterCeiling, Capability,
    Compatibility, DenyRule, Detected, EditMode, IntegrationIntent, Mechanism, MechanismOutcome,
    MechanismSupport, RenderError, RenderedIntegration, RuleOutcome, SettingsFile, SettingsScope,
    SupportToken, ToolDescriptor,
};
use serde_json::json;

const HOME: &str = "/sandbox/home";
const PROJECT: &str = "/sandbox/project";

fn full_intent() -> IntegrationIntent {
    IntegrationIntent {
        gateway_base_url: Some("http://127.0.0.1:7777/v1".into()),
        proxy_url: Some("http://127.0.0.1:7778".into()),
        hook_command: Some("/opt/devint/bin/devint-hook".into()),
        mcp_deny: vec!["exfil".into(), "shell-anywhere".into()],
        deny: vec![DenyRule::parse("shell:curl").unwrap()],
        require_approval: true,
    }
}

/// [`full_intent`] with a deny rule of every form, so that a tool which can express only
/// some of them (Aider: whole shell or web fetch) still has something to write.
fn every_rule_intent() -> IntegrationIntent {
    let deny = [
        "shell",
        "shell:curl",
        "web_fetch",
        "web_fetch:example.com",
        "web_search",
        "read",
        "read:~/.ssh/**",
        "write",
        "write:**/.env",
        "mcp:github",
        "mcp:github/create_issue",
    ];
    IntegrationIntent {
        deny: deny.map(|r| DenyRule::parse(r).unwrap()).to_vec(),
        ..full_intent()
    }
}

/// Renders `tool` at `scope` with `HOME` as home and, if given, `project` as the project.
fn render_with(
    tool: &ToolDescriptor,
    intent: &IntegrationIntent,
    scope: SettingsScope,
    project: Option<&str>,
) -> Result<RenderedIntegration, RenderError> {
    render(
        tool,
        intent,
        scope,
        Path::new(HOME),
        project.map(Path::new),
        None,
    )
}

fn render_at(id: &str, scope: SettingsScope) -> RenderedIntegration {
    render_with(find(id).unwrap(), &full_intent(), scope, Some(PROJECT)).unwrap()
}

/// A tool, one of its settings files, and the full intent rendered into it.
type Rendering = (
    &'static ToolDescriptor,
    &'static SettingsFile,
    RenderedIntegration,
);

/// Every tool rendered with the full intent at every scope it declares a file for.
fn every_rendering() -> impl Iterator<Item = Rendering> {
    all().iter().flat_map(|tool| {
        tool.settings.iter().map(|file| {
            let r = render_with(tool, &full_intent(), file.scope, Some(PROJECT))
                .unwrap_or_else(|e| panic!("{} {}: {e}", tool.id, file.scope.token()));
            (*tool, file, r)
        })
    })
}

#[test]
fn renders_for_every_tool_and_every_scope_it_declares_a_file_for() {
    for (tool, file, r) in every_rendering() {
        assert_eq!(r.tool_id, tool.id);
        assert_eq!(r.format, file.format);
        let root = match file.scope {
            SettingsScope::User => HOME,
            SettingsScope::Project => PROJECT,
            SettingsScope::Managed => "/",
        };
        assert!(
            r.file.starts_with(root),
            "{}: {}",
            tool.id,
            r.file.display()
        );
        assert_eq!(
            r.privileged,
            file.scope == SettingsScope::Managed,
            "{}",
            tool.id
        );
        // Every requested mechanism is reported exactly once.
        let expected = Mechanism::ALL
            .iter()
            .filter(|m| full_intent().requests(**m, file.scope))
            .count();
        assert_eq!(
            r.reports.len(),
            expected,
            "{} {}",
            tool.id,
            file.scope.token()
        );
        for edit in &r.edits {
            assert!(!edit.path.is_empty() && edit.path.iter().all(|s| !s.is_empty()));
            assert!(
                !edit.value.is_null(),
                "{} writes null at {:?}",
                tool.id,
                edit.path
            );
        }
    }
}

#[test]
fn every_available_mechanism_renders_in_some_declared_scope() {
    // Declaring a mechanism native/adapted that the engine cannot render is a contract violation.
    // Every form of deny rule is asked for: some tools can take away a tool but not match a
    // command prefix.
    for tool in all() {
        for mechanism in Mechanism::ALL {
            let support = tool.mechanisms.get(mechanism);
            if !support.is_available() || mechanism == Mechanism::ManagedSettings {
                continue;
            }
            for template in support.edits() {
                assert!(
                    template
                        .scopes
                        .scopes()
                        .any(|scope| tool.settings_for(scope).is_some()),
                    "{}: {:?} edit {:?} is declared only for scopes the tool has no file for",
                    tool.id,
                    mechanism,
                    template.path
                );
            }
            let rendered_somewhere = tool.settings.iter().any(|file| {
                let r = render_with(tool, &every_rule_intent(), file.scope, Some(PROJECT)).unwrap();
                let report = r
                    .reports
                    .iter()
                    .find(|x| x.capability == mechanism.capability())
                    .unwrap();
                !matches!(report.outcome, MechanismOutcome::Unsupported { .. })
                    && r.edits
                        .iter()
                        .any(|e| e.capability == mechanism.capability())
            });
            assert!(
                rendered_somewhere,
                "{}: {:?} is declared available but never renders",
                tool.id, mechanism
            );
        }
    }
}

#[test]
fn unsupported_mechanisms_are_reported_with_their_reasons_and_write_nothing() {
    for (tool, file, r) in every_rendering() {
        for mechanism in Mechanism::ALL {
            if let MechanismSupport::Unsupported { reason } = tool.mechanisms.get(mechanism) {
                if !full_intent().requests(mechanism, file.scope) {
                    continue;
                }
                let cap = mechanism.capability();
                let listed: Vec<_> = r.unsupported().filter(|(c, _)| *c == cap).collect();
                assert_eq!(listed, vec![(cap, *reason)], "{} {}", tool.id, cap.token());
                assert!(
                    r.edits.iter().all(|e| e.capability != cap),
                    "{} {}",
                    tool.id,
                    cap.token()
                );
            }
        }
    }
}

#[test]
fn codex_reports_proxy_and_mcp_as_unsupported_at_plan_time() {
    let r = render_at("codex", SettingsScope::User);
    let unsupported: Vec<Capability> = r.unsupported().map(|(c, _)| c).collect();
    assert_eq!(
        unsupported,
        vec![Capability::HttpProxy, Capability::McpGovernance]
    );
    let hooks = r
        .reports
        .iter()
        .find(|x| x.capability == Capability::Hooks)
        .unwrap();
    // A PreToolUse hook Codex runs only once the user trusts it: adapted, and the plan says so.
    assert!(matches!(&hooks.outcome, MechanismOutcome::Adapted { how } if how.contains("/hooks")));
    assert!(
        r.warnings.iter().any(|w| w.contains("/hooks")),
        "{:?}",
        r.warnings
    );
    // Codex has no deny list key: the deny rule is reported, never silently dropped.
    assert_eq!(
        r.rules.iter().map(|x| &x.outcome).collect::<Vec<_>>(),
        [&RuleOutcome::NotEnforceable],
        "{:?}",
        r.rules
    );
}

#[test]
fn claude_code_user_scope_renders_its_documented_keys() {
    let r = render_at("claude-code", SettingsScope::User);
    assert_eq!(r.file, Path::new(HOME).join(".claude/settings.json"));
    let get = |path: &[&str]| {
        r.edits
            .iter()
            .find(|e| e.path == path.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap_or_else(|| panic!("no edit at {path:?}"))
    };
    let base = get(&["env", "ANTHROPIC_BASE_URL"]);
    assert_eq!(base.value, json!("http://127.0.0.1:7777/v1"));
    assert_eq!(base.action_kind, ActionKind::ConfigureModelGatewayBaseUrl);
    assert_eq!(base.action_kind.token(), "configure_model_gateway_base_url");
    assert_eq!(
        get(&["env", "HTTPS_PROXY"]).action_kind,
        ActionKind::ConfigureProxy
    );
    let hook = get(&["hooks", "PreToolUse"]);
    assert_eq!(
        hook.value,
        json!([{ "matcher": "*", "hooks": [{ "type": "command", "command": "/opt/devint/bin/devint-hook" }] }])
    );
    assert_eq!(hook.action_kind, ActionKind::InstallHook);
    // The user's own PreToolUse hooks and deny rules stay: ours are appended.
    assert_eq!(hook.mode, EditMode::AppendToList);
    assert_eq!(get(&["permissions", "deny"]).mode, EditMode::AppendToList);
    assert_eq!(base.mode, EditMode::Replace);
    let mcp = get(&["deniedMcpServers"]);
    assert_eq!(
        mcp.value,
        json!([{ "serverName": "exfil" }, { "serverName": "shell-anywhere" }])
    );
    assert_eq!(mcp.action_kind, ActionKind::ConfigureMcpServers);
    // Both of Claude Code's shell tools get the rule, in its current syntax.
    assert_eq!(
        get(&["permissions", "deny"]).value,
        json!(["Bash(curl *)", "PowerShell(curl *)"])
    );
    assert!(r.unsupported().next().is_none());
    assert!(
        r.warnings.iter().all(|w| w.contains("claude doctor")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn claude_code_managed_scope_uses_the_managed_file() {
    let r = render_at("claude-code", SettingsScope::Managed);
    assert_eq!(r.file, Path::new("/etc/claude-code/managed-settings.json"));
    assert!(r.privileged);
    let mcp = r
        .edits
        .iter()
        .find(|e| e.capability == Capability::McpGovernance)
        .unwrap();
    assert_eq!(mcp.path, vec!["deniedMcpServers".to_string()]);
    assert_eq!(
        mcp.value,
        json!([{ "serverName": "exfil" }, { "serverName": "shell-anywhere" }])
    );
    let managed = r
        .reports
        .iter()
        .find(|x| x.capability == Capability::ManagedSettings)
        .unwrap();
    assert_eq!(managed.outcome, MechanismOutcome::Native);
}

#[test]
fn codex_gets_its_hook_inline_only_from_the_release_that_reads_it_there() {
    let at = |version: &str| {
        let version = semver::Version::parse(version).unwrap();
        render(
            find("codex").unwrap(),
            &full_intent(),
            SettingsScope::User,
            Path::new(HOME),
            None,
            Some(&version),
        )
        .unwrap()
    };
    let hook_paths = |r: &RenderedIntegration| -> Vec<Vec<String>> {
        r.edits
            .iter()
            .filter(|e| e.capability == Capability::Hooks)
            .map(|e| e.path.clone())
            .collect()
    };
    assert_eq!(
        hook_paths(&at("0.124.0")),
        vec![vec!["hooks".to_owned(), "PreToolUse".to_owned()]]
    );
    // Before 0.124 Codex reads no hooks in config.toml: nothing is written, and the plan
    // says the hook cannot be installed rather than writing a post-turn notify program.
    let old = at("0.123.0");
    assert!(hook_paths(&old).is_empty());
    assert!(old.unsupported().any(|(c, _)| c == Capability::Hooks));
}

#[test]
fn codex_project_scope_cannot_select_the_gateway_provider() {
    let r = render_at("codex", SettingsScope::Project);
    let (_, reason) = r
        .unsupported()
        .find(|(c, _)| *c == Capability::ModelGatewayBaseUrl)
        .unwrap();
    assert!(reason.contains("user or managed"), "{reason}");
    let user = render_at("codex", SettingsScope::User);
    let provider = user
        .edits
        .iter()
        .find(|e| e.path == ["model_provider"].map(String::from))
        .unwrap();
    assert_eq!(provider.value, json!("devint-gateway"));
    assert!(user
        .edits
        .iter()
        .any(|e| e.path.last().map(String::as_str) == Some("base_url")
            && e.value == json!("http://127.0.0.1:7777/v1")));
}

#[test]
fn project_scope_carries_the_folder_trust_warning() {
    for id in ["claude-code", "codex", "gemini-cli", "cursor"] {
        let r = render_at(id, SettingsScope::Project);
        assert!(
            r.warnings.iter().any(|w| w.contains("trust")),
            "{id}: {:?}",
            r.warnings
        );
        let user = render_at(id, SettingsScope::User);
        assert!(
            !user.warnings.iter().any(|w| w.contains("trusted")),
            "{id}: {:?}",
            user.warnings
        );
    }
}

#[test]
fn a_key_honoured_only_in_other_scopes_is_reported_unsupported_with_the_scopes_that_work() {
    // VS Code reads http.proxy from user settings only.
    let r = render_at("github-copilot", SettingsScope::Project);
    let (_, reason) = r
        .unsupported()
        .find(|(c, _)| *c == Capability::HttpProxy)
        .unwrap();
    assert!(
        reason.contains("user") && reason.contains("project"),
        "{reason}"
    );
    assert!(r
        .edits
        .iter()
        .all(|e| e.capability != Capability::HttpProxy));
}

#[test]
fn only_requested_mechanisms_are_rendered_or_reported() {
    let intent = IntegrationIntent {
        proxy_url: Some("http://127.0.0.1:9".into()),
        ..Default::default()
    };
    let r = render_with(
        find("claude-code").unwrap(),
        &intent,
        SettingsScope::User,
        None,
    )
    .unwrap();
    assert_eq!(r.reports.len(), 1);
    assert_eq!(r.reports[0].capability, Capability::HttpProxy);
    assert!(r
        .edits
        .iter()
        .all(|e| e.capability == Capability::HttpProxy));
    assert_eq!(r.edits.len(), 2);
}

#[test]
fn an_intent_part_a_tool_has_no_key_for_is_unsupported_not_silently_native() {
    // Aider has deny switches but no approval key: approval alone renders nothing.
    let intent = IntegrationIntent {
        require_approval: true,
        ..Default::default()
    };
    let r = render_with(find("aider").unwrap(), &intent, SettingsScope::User, None).unwrap();
    assert!(r.edits.is_empty());
    assert!(r
        .unsupported()
        .any(|(c, _)| c == Capability::ToolActionApproval));
}

#[test]
fn opencode_shell_rules_become_its_own_bash_patterns_never_claude_syntax() {
    let r = render_at("opencode", SettingsScope::Project);
    assert_eq!(r.file, Path::new(PROJECT).join("opencode.json"));
    let rule = r
        .edits
        .iter()
        .find(|e| e.path == ["permission", "bash", "curl *"].map(String::from))
        .unwrap_or_else(|| panic!("{:?}", r.edits));
    assert_eq!(rule.value, json!("deny"));
    assert!(
        !r.edits
            .iter()
            .any(|e| e.path.iter().any(|s| s.contains("Bash("))),
        "{:?}",
        r.edits
    );
}

#[test]
fn every_sentence_a_plan_takes_from_a_descriptor_fits_a_plan_line_whole() {
    // Plans carry these as `Sentence`s, which cut longer text short with an ellipsis.
    for tool in all() {
        let reasons = Mechanism::ALL
            .iter()
            .filter_map(|m| match tool.mechanisms.get(*m) {
                MechanismSupport::Unsupported { reason } => Some(*reason),
                _ => None,
            });
        for text in tool.warnings.iter().map(|w| w.text).chain(reasons) {
            assert!(
                text.chars().count() <= Sentence::MAX_CHARS,
                "{}: {} characters: {text}",
                tool.id,
                text.chars().count()
            );
        }
    }
}

#[test]
fn opencode_denies_an_mcp_server_by_its_tools_names() {
    let r = render_at("opencode", SettingsScope::User);
    assert_eq!(
        r.file,
        Path::new(HOME).join(".config/opencode/opencode.jsonc")
    );
    // OpenCode names an MCP tool `<server>_<tool>`: a `<server>_*` permission rule keeps
    // every tool of the server from being offered.
    for server in ["exfil", "shell-anywhere"] {
        let key = ["permission".to_owned(), format!("{server}_*")];
        let e = r
            .edits
            .iter()
            .find(|e| e.path == key)
            .unwrap_or_else(|| panic!("{server}: {:?}", r.edits));
        assert_eq!(e.value, json!("deny"));
        assert_eq!(e.capability, Capability::McpGovernance);
    }
    let mcp = r
        .reports
        .iter()
        .find(|x| x.capability == Capability::McpGovernance)
        .unwrap();
    assert!(
        matches!(&mcp.outcome, MechanismOutcome::Adapted { how } if how.contains("<server>_*"))
    );
}

#[test]
fn a_scope_without_a_settings_file_is_an_error_naming_the_scopes_that_exist() {
    let err = render_with(
        find("goose").unwrap(),
        &full_intent(),
        SettingsScope::Managed,
        None,
    )
    .unwrap_err();
    assert!(matches!(err, RenderError::NoSettingsFile { .. }));
    assert!(err.to_string().contains("user"), "{err}");
}

#[test]
fn project_scope_without_a_project_directory_is_an_error() {
    let err = render_with(
        find("claude-code").unwrap(),
        &full_intent(),
        SettingsScope::Project,
        None,
    )
    .unwrap_err();
    assert_eq!(
        err,
        RenderError::NoProjectDirectory {
            tool: "claude-code"
        }
    );
}

fn detected(version: Option<(u64, u64, u64)>) -> Detected {
    Detected {
        present: true,
        version: version.map(|(a, b, c)| semver::Version::new(a, b, c)),
        compatibility: Compatibility::Unknown,
        location: None,
        configured: None,
        absence: None,
    }
}

#[test]
fn requires_version_resolves_against_the_detected_version() {
    let cursor = find("cursor").unwrap();
    let hooks = |d: &Detected| {
        resolve(cursor, d)
            .into_iter()
            .find(|r| r.capability == Capability::Hooks)
            .unwrap()
    };
    // ADR §3.4 rule 2: no detected version is absent, never supported.
    assert_eq!(hooks(&detected(None)).support, SupportToken::Absent);
    assert_eq!(hooks(&Detected::absent()).support, SupportToken::Absent);
    let old = hooks(&detected(Some((1, 6, 9))));
    assert_eq!(old.support, SupportToken::RequiresVersion);
    assert!(
        old.reason.contains("1.7.0") && old.reason.contains("1.6.9"),
        "{}",
        old.reason
    );
    assert_eq!(
        hooks(&detected(Some((1, 7, 0)))).support,
        SupportToken::Supported
    );
}

#[test]
fn resolution_lists_all_twelve_in_order_with_reasons() {
    for tool in all() {
        let resolved = resolve(tool, &detected(Some((1, 0, 0))));
        let caps: Vec<Capability> = resolved.iter().map(|r| r.capability).collect();
        assert_eq!(caps, Capability::ALL, "{}", tool.id);
        assert!(resolved.iter().all(|r| !r.reason.is_empty()), "{}", tool.id);
    }
}

#[test]
fn unsupported_rows_resolve_to_unsupported_with_the_declared_reason() {
    let codex = find("codex").unwrap();
    let proxy = resolve(codex, &detected(Some((0, 63, 0))))
        .into_iter()
        .find(|r| r.capability == Capability::HttpProxy)
        .unwrap();
    assert_eq!(proxy.support, SupportToken::Unsupported);
    assert!(proxy.reason.contains("HTTPS_PROXY"));
}

#[test]
fn adapter_ceiling_follows_what_is_supported() {
    let ceiling = |id: &str, v: Option<(u64, u64, u64)>| {
        adapter_ceiling(&resolve(find(id).unwrap(), &detected(v)))
    };
    assert_eq!(
        ceiling("claude-code", Some((1, 0, 0))),
        AdapterCeiling::L3Native
    );
    assert_eq!(ceiling("cursor", Some((1, 7, 0))), AdapterCeiling::L3Native);
    // Cursor's hooks need 1.7: an older Cursor can do nothing enforceable.
    assert_eq!(
        ceiling("cursor", Some((1, 6, 0))),
        AdapterCeiling::L0Discover
    );
    assert_eq!(
        ceiling("opencode", Some((1, 0, 0))),
        AdapterCeiling::L2Enforce
    );
    assert_eq!(ceiling("kiro", Some((1, 0, 0))), AdapterCeiling::L1Observe);
    // Continue's tool policies enforce; Pi can only route its model traffic.
    assert_eq!(
        ceiling("continue", Some((1, 0, 0))),
        AdapterCeiling::L2Enforce
    );
    assert_eq!(ceiling("pi", Some((0, 73, 1))), AdapterCeiling::L1Observe);
    assert_eq!(AdapterCeiling::L3Native.token(), "l3_native");
}

#[test]
fn every_list_valued_edit_appends_and_never_replaces_a_users_list() {
    for (tool, _, r) in every_rendering() {
        for e in &r.edits {
            if e.mode == EditMode::AppendToList {
                assert!(e.value.is_array(), "{} {:?}", tool.id, e.path);
            }
            let is_deny_or_hook_list = e.value.is_array()
                && matches!(
                    e.action_kind,
                    ActionKind::InstallHook
                        | ActionKind::ConfigureMcpServers
                        | ActionKind::WriteManagedSettings
                );
            if is_deny_or_hook_list {
                assert_eq!(e.mode, EditMode::AppendToList, "{} {:?}", tool.id, e.path);
            }
        }
    }
}

#[test]
fn no_rendered_edit_path_is_a_prefix_of_another() {
    // A prefix would make one edit overwrite another in the same file. Two capabilities
    // may each add entries to one list (Aider's set-env): those edits append side by side.
    for (tool, file, r) in every_rendering() {
        for (i, a) in r.edits.iter().enumerate() {
            for (j, b) in r.edits.iter().enumerate() {
                let side_by_side = a.path == b.path
                    && a.mode == EditMode::AppendToList
                    && b.mode == EditMode::AppendToList
                    && a.capability != b.capability;
                if i != j && !side_by_side {
                    assert!(
                        !b.path.starts_with(&a.path),
                        "{} {}: {:?} clobbers {:?}",
                        tool.id,
                        file.scope.token(),
                        a.path,
                        b.path
                    );
                }
            }
        }
    }
}

#[test]
fn list_tools_reports_every_tool_with_twelve_capabilities_in_a_sandbox() {
    let home = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let listings = devint_runtime::adapters::Detector::new("/nonexistent", home.path())
        .with_root(home.path())
        .list_tools();
    assert_eq!(listings.len(), all().len());
    for l in &listings {
        assert!(
            !l.detected.present,
            "{} found in an empty sandbox",
            l.tool_id
        );
        assert_eq!(l.detected.compatibility, Compatibility::Unknown);
        assert_eq!(l.capabilities.len(), 12, "{}", l.tool_id);
    }
    // Undetected Cursor: its version-gated hooks resolve to absent, so no enforcement.
    let cursor = listings.iter().find(|l| l.tool_id == "cursor").unwrap();
    assert_eq!(cursor.adapter_ceiling, AdapterCeiling::L0Discover);
}
