//! The closed string vocabularies of spec §4, one enum each.
//!
//! This module owns every snake_case token that may appear in a string-typed enum field on
//! the wire, and the one error for a token outside its vocabulary. It must never accept a
//! token that is not in the spec's table, and its errors must never echo the refused input
//! (it may be hostile): they give its length and list the accepted tokens instead (spec §4:
//! "An argument outside its vocabulary is refused with `LIFECYCLE_ERROR` and a remediation
//! that lists the accepted tokens").
//!
//! The enums are deliberately not `#[non_exhaustive]` (even on types the protocol will
//! grow): the runtime decides file modes per scope, the next rung per level
//! and a profile's cap by matching on them, and a wildcard arm there would hand a value this
//! build has never seen a default: the opposite of failing closed. A new token reaches this
//! crate as a new version of it, and every exhaustive match in the workspace then fails to
//! compile until it is handled; a peer's token this build does not know is read as a typed
//! "unrecognized" field (`views::tolerant`), never as a guessed variant.
// spec[S4-VOCABULARY] §4: a token outside its vocabulary is refused (LIFECYCLE_ERROR, listing
// the accepted tokens); every vocabulary below is closed.

/// A token outside its vocabulary. The message names the field, the length of what was
/// given (never the text) and every accepted token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{field} is not one of its accepted tokens (got {got_len} bytes); use one of: {}", .accepted.join(", "))]
#[non_exhaustive]
pub struct OutsideVocabulary {
    /// The field (or vocabulary) being parsed.
    pub field: &'static str,
    /// The length in bytes of the refused input.
    pub got_len: usize,
    /// Every accepted token, in spec order.
    pub accepted: &'static [&'static str],
}

impl OutsideVocabulary {
    /// The remediation sentence for a `Denied`: which tokens `field` accepts.
    pub fn remediation(&self) -> String {
        format!("set {} to one of: {}", self.field, self.accepted.join(", "))
    }
}

/// Defines a closed vocabulary enum with `token`, `parse`, `parse_as`, `ALL`, `TOKENS`,
/// `Display` and a token-valued `Serialize`.
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        $name:ident as $field:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $token:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every member, in spec order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every token, in spec order.
            pub const TOKENS: &'static [&'static str] = &[$($token),+];
            /// The name used in errors when no more specific field is given.
            pub const FIELD: &'static str = $field;

            /// The wire token.
            pub const fn token(self) -> &'static str {
                match self {
                    $($name::$variant => $token,)+
                }
            }

            /// Parse a wire token (exact, case-sensitive).
            pub fn parse(token: &str) -> Result<$name, OutsideVocabulary> {
                $name::parse_as(token, $field)
            }

            /// Parse a wire token, naming `field` in the error.
            pub fn parse_as(token: &str, field: &'static str) -> Result<$name, OutsideVocabulary> {
                match token {
                    $($token => Ok($name::$variant),)+
                    _ => Err(OutsideVocabulary {
                        field,
                        got_len: token.len(),
                        accepted: $name::TOKENS,
                    }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.token())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.token())
            }
        }
    };
}

vocabulary! {
    /// `PlanArgs.profile` / `PlanView.profile`.
    Profile as "profile" {
        /// The default integration profile.
        Recommended = "recommended",
        /// The strictest profile.
        Strict = "strict",
        /// Observe only; nothing is enforced.
        ObserveOnly = "observe_only",
    }
}

vocabulary! {
    /// Settings scope: mandatory on plan, never inferred from a working directory.
    SettingsScope as "settings_scope" {
        /// The user's own settings.
        User = "user",
        /// A project's settings.
        Project = "project",
        /// Managed (administrator) settings.
        Managed = "managed",
    }
}

vocabulary! {
    /// The protection ladder, ordered from `not_installed` (lowest) to `host_enforced`.
    Level as "level" {
        /// The tool is not installed.
        NotInstalled = "not_installed",
        /// The tool is detected but not integrated.
        DetectedNotIntegrated = "detected_not_integrated",
        /// Some of the integration is in place.
        PartiallyIntegrated = "partially_integrated",
        /// Receipt, matching fingerprints and a fresh read-back.
        Integrated = "integrated",
        /// An exercised probe was observed by a gateway.
        GatewayProtected = "gateway_protected",
        /// Enforced by the host.
        HostEnforced = "host_enforced",
    }
}

impl Level {
    // spec[S4-EMPTY-DEFAULTS] §4: an empty `requested_level` means `gateway_protected`.
    /// Parse `PlanArgs.requested_level`: the empty string means `gateway_protected` (spec §4).
    pub fn parse_requested(token: &str) -> Result<Level, OutsideVocabulary> {
        if token.is_empty() {
            Ok(Level::GatewayProtected)
        } else {
            Level::parse_as(token, "requested_level")
        }
    }
}

vocabulary! {
    /// How far an adapter can integrate a tool at best.
    AdapterCeiling as "adapter_ceiling" {
        /// Discovery only.
        L0Discover = "l0_discover",
        /// Observation.
        L1Observe = "l1_observe",
        /// Enforcement.
        L2Enforce = "l2_enforce",
        /// Native integration.
        L3Native = "l3_native",
    }
}

vocabulary! {
    /// `StatusView.state`: the ladder, or an overriding condition.
    StatusState as "state" {
        /// On the ladder; `achieved_level` is the rung.
        Ladder = "ladder",
        /// Our keys or artifacts changed.
        Drifted = "drifted",
        /// A mechanism is degraded.
        Degraded = "degraded",
        /// The installed tool is incompatible.
        Incompatible = "incompatible",
    }
}

vocabulary! {
    /// `StatusView.phase`: where the lifecycle stands.
    Phase as "phase" {
        /// Not installed.
        NotInstalled = "not_installed",
        /// Detected, not integrated.
        DetectedNotIntegrated = "detected_not_integrated",
        /// A plan exists.
        Planned = "planned",
        /// Installed.
        Installed = "installed",
        /// Partially installed.
        PartiallyInstalled = "partially_installed",
        /// A removal is pending.
        RemovalPending = "removal_pending",
    }
}

vocabulary! {
    // spec[S4-CAPABILITY-ORDER] §4: all twelve capabilities, for every tool, in this order.
    /// The twelve integration capabilities, in spec order (all twelve are listed per tool).
    CapabilityName as "capability" {
        /// Detecting the tool.
        Discovery = "discovery",
        /// Managed settings.
        ManagedSettings = "managed_settings",
        /// Managed launch.
        ManagedLaunch = "managed_launch",
        /// Intercepting the model path.
        ModelPathInterception = "model_path_interception",
        /// Setting the model gateway base URL.
        ModelGatewayBaseUrl = "model_gateway_base_url",
        /// An HTTP proxy.
        HttpProxy = "http_proxy",
        /// Hooks.
        Hooks = "hooks",
        /// MCP server discovery.
        McpDiscovery = "mcp_discovery",
        /// MCP governance.
        McpGovernance = "mcp_governance",
        /// Approval of tool actions.
        ToolActionApproval = "tool_action_approval",
        /// Native IDE UI.
        NativeIdeUi = "native_ide_ui",
        /// Host enforcement.
        HostEnforcement = "host_enforcement",
    }
}

vocabulary! {
    /// `CapabilityView.support`.
    Support as "support" {
        /// Supported.
        Supported = "supported",
        /// Unsupported (the view's reason says why).
        Unsupported = "unsupported",
        /// Needs a newer tool version.
        RequiresVersion = "requires_version",
        /// Not declared by the adapter: never `supported`.
        Absent = "absent",
    }
}

vocabulary! {
    /// `ToolSummary.compatibility` / `StatusView.compatibility`.
    Compatibility as "compatibility" {
        /// Compatible.
        Compatible = "compatible",
        /// Unknown.
        Unknown = "unknown",
        /// Incompatible.
        Incompatible = "incompatible",
    }
}

vocabulary! {
    /// `StepView.requirement`.
    Requirement as "requirement" {
        /// The step is required.
        Required = "required",
        /// The step is optional.
        Optional = "optional",
    }
}

vocabulary! {
    /// `StepView.privilege`.
    Privilege as "privilege" {
        /// Runs with the user's rights.
        User = "user",
        /// Changes the host; individually consented.
        PrivilegedHost = "privileged_host",
    }
}

vocabulary! {
    /// `StepView.action_kind`: the twelve kinds of plan step.
    ActionKind as "action_kind" {
        /// Write managed settings keys.
        WriteManagedSettings = "write_managed_settings",
        /// Install a hook.
        InstallHook = "install_hook",
        /// Remove a hook.
        RemoveHook = "remove_hook",
        /// Point the tool at the model gateway.
        ConfigureModelGatewayBaseUrl = "configure_model_gateway_base_url",
        /// Configure a proxy.
        ConfigureProxy = "configure_proxy",
        /// Materialise trust material (e.g. a CA certificate).
        MaterialiseTrustMaterial = "materialise_trust_material",
        /// Inject launch environment.
        InjectLaunchEnvironment = "inject_launch_environment",
        /// Configure MCP servers.
        ConfigureMcpServers = "configure_mcp_servers",
        /// Register an IDE client.
        RegisterIdeClient = "register_ide_client",
        /// Connect the local runtime.
        ConnectLocalRuntime = "connect_local_runtime",
        /// Run a protection test.
        RunProtectionTest = "run_protection_test",
        /// Manage an artifact file.
        ManageArtifact = "manage_artifact",
    }
}

vocabulary! {
    /// `StepOutcomeView.outcome`.
    StepOutcome as "step_outcome" {
        /// Applied.
        Applied = "applied",
        /// Skipped.
        Skipped = "skipped",
        /// Failed.
        Failed = "failed",
    }
}

vocabulary! {
    /// `EvidenceView.kind`; each kind has its own outcome vocabulary.
    EvidenceKind as "evidence_kind" {
        /// A read-back of what we wrote.
        ReadBack = "read_back",
        /// An exercised probe.
        Exercised = "exercised",
        /// Attested by the host.
        HostAttested = "host_attested",
        /// No evidence; the outcome is a short reason token.
        Absent = "absent",
    }
}

vocabulary! {
    /// Outcome of `read_back` evidence.
    ReadBackOutcome as "read_back_outcome" {
        /// What we read matched what we wrote.
        Matched = "matched",
        /// It did not.
        Mismatched = "mismatched",
    }
}

vocabulary! {
    /// Outcome of `exercised` evidence.
    ExercisedOutcome as "exercised_outcome" {
        /// The probe was blocked.
        Blocked = "blocked",
        /// The probe was redacted.
        Redacted = "redacted",
        /// The probe was only observed.
        ObservedOnly = "observed_only",
        /// The probe leaked.
        Leaked = "leaked",
        /// No conclusion.
        Inconclusive = "inconclusive",
    }
}

vocabulary! {
    /// Outcome of `host_attested` evidence.
    HostAttestedOutcome as "host_attested_outcome" {
        /// Healthy.
        Healthy = "healthy",
        /// Unhealthy.
        Unhealthy = "unhealthy",
    }
}

vocabulary! {
    /// `VerificationView.outcome`.
    VerificationOutcome as "verification_outcome" {
        /// Passed.
        Passed = "passed",
        /// Partially passed.
        PartiallyPassed = "partially_passed",
        /// Failed.
        Failed = "failed",
        /// Could not be verified.
        Unverifiable = "unverifiable",
    }
}

vocabulary! {
    /// `PolicyView.state`.
    PolicyState as "policy_state" {
        /// A policy is enforced.
        Enforced = "enforced",
        /// A policy is loaded but permissive.
        Permissive = "permissive",
        /// No policy configured.
        Unconfigured = "unconfigured",
        /// Loading the policy failed.
        LoadFailed = "load_failed",
        /// Unknown.
        Unknown = "unknown",
    }
}

vocabulary! {
    /// `ScopedEvent.verdict_kind`.
    VerdictKind as "verdict_kind" {
        /// Allowed.
        Allow = "allow",
        /// Denied.
        Deny = "deny",
        /// Redacted.
        Redacted = "redacted",
        /// Needed an approval.
        ApprovalRequired = "approval_required",
    }
}

vocabulary! {
    /// `ApprovalRelayArgs.user_input`: what the user answered, relayed (never decided here).
    UserInput as "user_input" {
        /// Approve.
        Approve = "approve",
        /// Deny.
        Deny = "deny",
        /// Defer.
        Defer = "defer",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_round_trips() {
        fn check<T: Copy + PartialEq + std::fmt::Debug>(
            all: &[T],
            token: fn(T) -> &'static str,
            parse: fn(&str) -> Result<T, OutsideVocabulary>,
        ) {
            for &v in all {
                assert_eq!(parse(token(v)), Ok(v));
            }
        }
        check(Profile::ALL, Profile::token, Profile::parse);
        check(Level::ALL, Level::token, Level::parse);
        check(
            CapabilityName::ALL,
            CapabilityName::token,
            CapabilityName::parse,
        );
        check(ActionKind::ALL, ActionKind::token, ActionKind::parse);
        check(UserInput::ALL, UserInput::token, UserInput::parse);
    }

    #[test]
    fn ladder_is_ordered_lowest_first() {
        assert!(Level::NotInstalled < Level::DetectedNotIntegrated);
        assert!(Level::Integrated < Level::GatewayProtected);
        assert!(Level::GatewayProtected < Level::HostEnforced);
        assert_eq!(Level::parse_requested(""), Ok(Level::GatewayProtected));
        assert_eq!(Level::parse("").unwrap_err().got_len, 0);
    }

    #[test]
    fn outside_vocabulary_lists_tokens_and_never_echoes_input() {
        let e = Profile::parse_as("STRICT<script>", "profile").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("recommended, strict, observe_only"), "{msg}");
        assert!(msg.contains("14 bytes"), "{msg}");
        assert!(!msg.contains("STRICT"), "{msg}");
        assert!(!msg.contains("script"), "{msg}");
        assert!(e
            .remediation()
            .contains("recommended, strict, observe_only"));
    }
}
