//! The capability table agrees with what the real tools were judged to do
//! (`conformance/tools.toml`, run by `conformance/run.py` in CI).
//!
//! This is the static half of the freshness gate: every registered tool is listed there,
//! with its pinned release or the reason no registry carries it; a pinned release is within
//! the descriptor's supported range; and for a tool that installs, every mechanism the
//! descriptor calls supported was judged on the date the pins were judged and has an
//! expectation the judge must meet. The dynamic half — the judges meeting them — is the
//! conformance job itself.

use std::path::Path;

use devint_runtime::adapters::{all, Capability, DeclaredSupport};

/// The capabilities whose keys devint writes (the ones a judge must show).
const MECHANISMS: [Capability; 5] = [
    Capability::ModelGatewayBaseUrl,
    Capability::HttpProxy,
    Capability::Hooks,
    Capability::McpGovernance,
    Capability::ToolActionApproval,
];

fn pins() -> toml::Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/tools.toml");
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_tool_is_pinned_or_says_why_it_cannot_be_installed() {
    let pins = pins();
    assert!(
        pins["judged"].is_str(),
        "the pins say when they were judged"
    );
    for tool in all() {
        let entry = pins
            .get(tool.id)
            .and_then(toml::Value::as_table)
            .unwrap_or_else(|| panic!("conformance/tools.toml has no [{}]", tool.id));
        match entry.get("registry").and_then(toml::Value::as_str) {
            Some("npm" | "pypi") => {
                let pinned = entry
                    .get("reports_version")
                    .or(entry.get("version"))
                    .and_then(toml::Value::as_str)
                    .unwrap();
                let version = semver::Version::parse(pinned).unwrap();
                let range = semver::VersionReq::parse(tool.detection.supported).unwrap();
                assert!(
                    range.matches(&version),
                    "{}: {pinned} is outside {range}",
                    tool.id
                );
            }
            Some(other) => panic!("{}: unknown registry {other}", tool.id),
            None => assert!(
                entry
                    .get("not_installable")
                    .and_then(toml::Value::as_str)
                    .is_some_and(|why| why.len() > 20),
                "{}: no registry and no reason",
                tool.id
            ),
        }
    }
    for id in pins.keys().filter(|k| pins[*k].is_table()) {
        assert!(
            all().iter().any(|t| t.id == id),
            "[{id}] is not a registered tool"
        );
    }
}

#[test]
fn every_mechanism_an_installable_tool_supports_was_judged_and_has_an_expectation() {
    let pins = pins();
    // The descriptors' judged date and the pins' are one fact: a supported row carries it.
    let judged = pins["judged"].as_str().unwrap();
    for tool in all() {
        let entry = pins[tool.id].as_table().unwrap();
        if !entry.contains_key("registry") {
            continue;
        }
        let shows = |profile: &str, capability: Capability| {
            entry
                .get("shows")
                .and_then(|s| s.get(profile))
                .and_then(|p| p.get(capability.token()))
                .is_some()
        };
        let unobservable = |capability: Capability| {
            entry
                .get("unobservable")
                .and_then(|u| u.get(capability.token()))
                .is_some()
        };
        for capability in MECHANISMS {
            let row = tool.capability(capability).unwrap();
            if row.support != DeclaredSupport::Supported {
                continue;
            }
            assert_eq!(
                row.checked,
                judged,
                "{}: {} is supported but was not judged by the real release",
                tool.id,
                capability.token()
            );
            assert!(
                shows("recommended", capability)
                    || shows("strict", capability)
                    || unobservable(capability),
                "{}: {} is supported but no judge expectation shows it",
                tool.id,
                capability.token()
            );
        }
    }
}
