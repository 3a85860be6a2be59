//! The registry and every descriptor in it keep the spec §4 and ADR §3 contracts.

use devint_runtime::adapters::{
    all, find, Capability, DeclaredSupport, Mechanism, PathBase, SettingsScope,
};

#[test]
fn at_least_sixteen_tools_are_registered() {
    assert!(all().len() >= 16, "only {} tools registered", all().len());
}

#[test]
fn the_four_wire_pinned_ids_exist() {
    for id in ["claude-code", "codex", "github-copilot", "windsurf-cascade"] {
        assert!(find(id).is_some(), "{id} is missing from the registry");
    }
}

#[test]
fn find_matches_exact_ids_only() {
    assert_eq!(find("claude-code").map(|t| t.id), Some("claude-code"));
    assert!(find("Claude-Code").is_none());
    assert!(find("claude").is_none());
    assert!(find("").is_none());
}

#[test]
fn ids_are_kebab_case_and_unique() {
    let mut seen = std::collections::HashSet::new();
    for tool in all() {
        let id = tool.id;
        assert!(
            !id.is_empty() && !id.starts_with('-') && !id.ends_with('-'),
            "{id}"
        );
        assert!(!id.contains("--"), "{id}");
        assert!(
            id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{id} is not kebab-case"
        );
        assert!(seen.insert(id), "{id} is registered twice");
        assert!(!tool.display_name.is_empty(), "{id} has no display name");
    }
}

#[test]
fn every_tool_lists_all_twelve_capabilities_in_spec_order() {
    let tokens: Vec<&str> = Capability::ALL.iter().map(|c| c.token()).collect();
    assert_eq!(
        tokens,
        [
            "discovery",
            "managed_settings",
            "managed_launch",
            "model_path_interception",
            "model_gateway_base_url",
            "http_proxy",
            "hooks",
            "mcp_discovery",
            "mcp_governance",
            "tool_action_approval",
            "native_ide_ui",
            "host_enforcement"
        ]
    );
    for tool in all() {
        let listed: Vec<Capability> = tool.capabilities.iter().map(|r| r.capability).collect();
        assert_eq!(
            listed,
            Capability::ALL,
            "{} lists capabilities out of spec order",
            tool.id
        );
    }
}

#[test]
fn every_capability_row_names_a_public_source_and_a_check_date() {
    for tool in all() {
        for row in &tool.capabilities {
            let what = format!("{} {}", tool.id, row.capability.token());
            assert!(
                row.source.starts_with("https://"),
                "{what}: source {:?}",
                row.source
            );
            let d = row.checked.as_bytes();
            let is_date = d.len() == 10
                && d[4] == b'-'
                && d[7] == b'-'
                && d.iter()
                    .enumerate()
                    .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
            assert!(
                is_date,
                "{what}: checked {:?} is not YYYY-MM-DD",
                row.checked
            );
            if let DeclaredSupport::Unsupported { reason } = row.support {
                assert!(reason.len() > 20, "{what}: reason too thin to show a user");
            }
        }
    }
}

#[test]
fn version_ranges_and_minimums_parse_as_semver() {
    for tool in all() {
        semver::VersionReq::parse(tool.detection.supported)
            .unwrap_or_else(|e| panic!("{}: supported range: {e}", tool.id));
        for row in &tool.capabilities {
            if let DeclaredSupport::RequiresVersion { min } = row.support {
                semver::Version::parse(min)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", tool.id, row.capability.token()));
            }
        }
    }
}

#[test]
fn every_tool_has_a_way_to_be_detected() {
    for tool in all() {
        let d = &tool.detection;
        assert!(
            !d.binaries.is_empty() || !d.extensions.is_empty(),
            "{} is undetectable",
            tool.id
        );
        if !d.binaries.is_empty() {
            assert!(
                !d.version_args.is_empty(),
                "{} has no version command",
                tool.id
            );
        }
    }
}

#[test]
fn every_command_line_tool_names_its_documented_install_directories_with_a_source() {
    for tool in all() {
        let d = &tool.detection;
        if d.binaries.is_empty() {
            assert!(
                d.install_dirs.is_empty(),
                "{}: install directories without a binary",
                tool.id
            );
            continue;
        }
        assert!(
            !d.install_dirs.is_empty(),
            "{} is searched on PATH only",
            tool.id
        );
        for dir in d.install_dirs.iter().flat_map(|g| g.iter()) {
            assert!(
                dir.source.starts_with("https://"),
                "{}: {} has no source",
                tool.id,
                dir.path
            );
            match dir.base {
                PathBase::Home => assert!(!dir.path.starts_with('/'), "{}: {}", tool.id, dir.path),
                PathBase::Absolute => {
                    assert!(dir.path.starts_with('/'), "{}: {}", tool.id, dir.path)
                }
                PathBase::Project => panic!("{}: a project-relative install directory", tool.id),
            }
            assert!(
                dir.path.matches('*').count() <= 1
                    && dir
                        .path
                        .split('/')
                        .all(|seg| seg == "*" || !seg.contains('*')),
                "{}: {} may hold one whole `*` segment at most",
                tool.id,
                dir.path
            );
        }
        if let Some(config) = d.config_dir {
            assert!(
                !config.starts_with('/') && !config.is_empty(),
                "{}: {config}",
                tool.id
            );
        }
    }
}

#[test]
fn capability_rows_agree_with_mechanisms() {
    // Declaring a capability supported while its mechanism is unsupported (or the reverse)
    // would tell the user one thing in list_tools and another at plan time.
    for tool in all() {
        for mechanism in Mechanism::ALL {
            let row = tool.capability(mechanism.capability()).expect("declared");
            let declared = !matches!(row.support, DeclaredSupport::Unsupported { .. });
            let available = tool.mechanisms.get(mechanism).is_available();
            assert_eq!(
                declared,
                available,
                "{}: capability {} is {:?} but the mechanism is {}",
                tool.id,
                row.capability.token(),
                row.support,
                if available {
                    "available"
                } else {
                    "unsupported"
                }
            );
        }
    }
}

#[test]
fn managed_settings_is_available_exactly_when_a_managed_file_is_declared() {
    for tool in all() {
        let managed_file = tool.settings_for(SettingsScope::Managed);
        assert_eq!(
            managed_file.is_some(),
            tool.mechanisms.managed_settings.is_available(),
            "{}",
            tool.id
        );
        if let Some(file) = managed_file {
            assert_eq!(
                file.base,
                PathBase::Absolute,
                "{}: managed files are absolute",
                tool.id
            );
        }
    }
}

#[test]
fn at_most_one_settings_file_per_scope_with_matching_bases() {
    for tool in all() {
        for &scope in SettingsScope::ALL {
            let files: Vec<_> = tool.settings.iter().filter(|s| s.scope == scope).collect();
            assert!(
                files.len() <= 1,
                "{} has {} {} files",
                tool.id,
                files.len(),
                scope.token()
            );
            for f in files {
                let expected = match scope {
                    SettingsScope::User => PathBase::Home,
                    SettingsScope::Project => PathBase::Project,
                    SettingsScope::Managed => PathBase::Absolute,
                };
                assert_eq!(f.base, expected, "{} {}", tool.id, scope.token());
                assert!(
                    !f.path.is_empty() && !f.path.contains(".."),
                    "{} {}",
                    tool.id,
                    f.path
                );
            }
        }
    }
}

#[test]
fn tokens_round_trip_and_reject_strangers() {
    // The adapters speak the crate's one set of spec vocabularies (`devint::verbs`).
    for &c in Capability::ALL {
        assert_eq!(Capability::parse(c.token()).ok(), Some(c));
    }
    for &s in SettingsScope::ALL {
        assert_eq!(SettingsScope::parse(s.token()).ok(), Some(s));
    }
    assert_eq!(Capability::parse("Hooks").ok(), None);
    assert_eq!(SettingsScope::parse("workspace").ok(), None);
}
