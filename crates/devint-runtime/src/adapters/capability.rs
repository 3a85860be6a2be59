//! Capability resolution: a descriptor's declared rows × what detection found on this host
//! → the `CapabilityView` support tokens and the adapter ceiling (ADR §3.4).
//!
//! Owns the fail-absent rules. Must never fabricate support from missing data: an
//! undeclared capability is `absent`, and `requires_version` with no detected version is
//! `absent`, never `supported`.

use super::descriptor::{DeclaredSupport, ToolDescriptor};
use super::detected::Detected;
use super::vocabulary::{AdapterCeiling, Capability, SupportToken};

/// One capability as resolved on this host (the content of a `CapabilityView`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCapability {
    /// Which capability.
    pub capability: Capability,
    /// The resolved support token.
    pub support: SupportToken,
    /// A user-facing sentence explaining the token.
    pub reason: String,
}

// spec[S4-CAPABILITY-ORDER] §4: every tool lists all twelve capabilities, in spec order.
/// Resolves all twelve capabilities, in spec order, for `descriptor` given `detected`.
pub fn resolve(descriptor: &ToolDescriptor, detected: &Detected) -> Vec<ResolvedCapability> {
    Capability::ALL
        .iter()
        .copied()
        .map(|capability| resolve_one(descriptor, capability, detected))
        .collect()
}

fn resolve_one(
    descriptor: &ToolDescriptor,
    capability: Capability,
    detected: &Detected,
) -> ResolvedCapability {
    let name = descriptor.display_name;
    let cap = capability.token();
    // ADR §3.4 rule 1: a capability absent from declared is absent, never supported.
    let Some(row) = descriptor.capability(capability) else {
        return ResolvedCapability {
            capability,
            support: SupportToken::Absent,
            reason: format!("the {name} adapter does not declare {cap}"),
        };
    };
    let (support, reason) = match row.support {
        DeclaredSupport::Supported => (
            SupportToken::Supported,
            format!(
                "{name} supports {cap} (checked {} against {})",
                row.checked, row.source
            ),
        ),
        DeclaredSupport::Unsupported { reason } => (SupportToken::Unsupported, reason.to_owned()),
        DeclaredSupport::RequiresVersion { min } => {
            match (semver::Version::parse(min), &detected.version) {
                (Err(_), _) => (
                    SupportToken::Absent,
                    format!("the {name} adapter declares an unreadable minimum version for {cap}"),
                ),
                // ADR §3.4 rule 2: RequiresVersion with no detected version resolves to absent.
                (Ok(_), None) => (
                    SupportToken::Absent,
                    format!("{cap} needs {name} {min} or later and no version was detected"),
                ),
                (Ok(min_v), Some(found)) if *found < min_v => (
                    SupportToken::RequiresVersion,
                    format!(
                        "{cap} needs {name} {min} or later; {found} is installed: upgrade {name}"
                    ),
                ),
                (Ok(_), Some(found)) => (
                    SupportToken::Supported,
                    format!("{name} {found} supports {cap} (needs {min} or later)"),
                ),
            }
        }
    };
    ResolvedCapability {
        capability,
        support,
        reason,
    }
}

/// The highest rung an adapter can reach given its resolved capabilities.
///
/// `l3_native`: managed settings plus an enforcing mechanism; `l2_enforce`: hooks, MCP
/// governance or tool-action approval; `l1_observe`: a route for model traffic;
/// otherwise `l0_discover`.
pub fn adapter_ceiling(resolved: &[ResolvedCapability]) -> AdapterCeiling {
    let has = |c: Capability| {
        resolved
            .iter()
            .any(|r| r.capability == c && r.support == SupportToken::Supported)
    };
    let enforces = has(Capability::Hooks)
        || has(Capability::McpGovernance)
        || has(Capability::ToolActionApproval);
    let observes = has(Capability::ModelGatewayBaseUrl)
        || has(Capability::HttpProxy)
        || has(Capability::ModelPathInterception);
    if enforces && has(Capability::ManagedSettings) {
        AdapterCeiling::L3Native
    } else if enforces {
        AdapterCeiling::L2Enforce
    } else if observes {
        AdapterCeiling::L1Observe
    } else {
        AdapterCeiling::L0Discover
    }
}

/// One tool as `list_tools` reports it (the content of a `ToolSummary`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolListing {
    /// Tool id.
    pub tool_id: &'static str,
    /// Display name.
    pub display_name: &'static str,
    /// What detection found.
    pub detected: Detected,
    /// All twelve capabilities, resolved, in spec order.
    pub capabilities: Vec<ResolvedCapability>,
    /// The adapter ceiling derived from them.
    pub adapter_ceiling: AdapterCeiling,
}

/// Resolves one descriptor against what detection found for it.
pub fn listing(descriptor: &'static ToolDescriptor, detected: Detected) -> ToolListing {
    let capabilities = resolve(descriptor, &detected);
    let adapter_ceiling = adapter_ceiling(&capabilities);
    ToolListing {
        tool_id: descriptor.id,
        display_name: descriptor.display_name,
        detected,
        capabilities,
        adapter_ceiling,
    }
}
