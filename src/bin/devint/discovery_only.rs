//! [`DiscoveryOnlyBackend`]: the stand-in backend until the reference lifecycle runtime is
//! linked into `devint serve`. It answers `list_tools` and `status` from the adapters'
//! detection and refuses every other verb with a `LIFECYCLE_ERROR` saying so.
//!
//! It must never fabricate a protection state: with no lifecycle backend nothing is ever
//! integrated, so `status` reports at most `detected_not_integrated` and says what blocks
//! the next rung. Delete this file (and its `mod` line) when `open_backend` returns the
//! reference runtime.

use std::path::{Path, PathBuf};

use devint::adapters;
use devint::lifecycle::{Lifecycle, LifecycleError};
use devint::session::{Authorization, ToolAuthorization};
use devint::verbs::{
    AdapterCeiling, ApplyView, ApprovalId, ApprovalRelayAck, CapabilityName, CapabilityView,
    Compatibility, Level, NextLevelView, Phase, PlanArgs, PlanId, PlanView, RemovalView,
    RepairView, ScopedEventList, Sentence, StatusState, StatusView, Support, ToolId, ToolList,
    ToolSummary, UserInput, VerificationView, VersionLabel,
};

/// Answers `list_tools` and `status` from detection; refuses every other verb.
#[derive(Debug)]
pub struct DiscoveryOnlyBackend {
    home: PathBuf,
    path_env: String,
}

const NO_BACKEND: &str = "this runtime build has no lifecycle backend yet";
const NO_BACKEND_FIX: &str =
    "use a devint build that includes the reference lifecycle runtime; tools and status work now";

fn refused() -> LifecycleError {
    LifecycleError::refused(
        Sentence::from_static(NO_BACKEND),
        Sentence::from_static(NO_BACKEND_FIX),
    )
}

fn sentence(text: &str) -> Option<Sentence> {
    Some(Sentence::or_placeholder(text).0)
}

impl DiscoveryOnlyBackend {
    /// Detection on `path_env` under `home`.
    pub fn new(home: &Path, path_env: &str) -> DiscoveryOnlyBackend {
        DiscoveryOnlyBackend {
            home: home.to_path_buf(),
            path_env: path_env.to_owned(),
        }
    }

    fn summary(listing: &adapters::ToolListing) -> Result<ToolSummary, LifecycleError> {
        let tool_id = ToolId::parse(listing.tool_id).map_err(|_| refused())?;
        let capabilities = listing
            .capabilities
            .iter()
            .map(|c| {
                Ok(CapabilityView {
                    capability: CapabilityName::parse(c.capability.token())
                        .map_err(|_| refused())?,
                    support: Support::parse(c.support.token()).map_err(|_| refused())?,
                    reason: (c.support != adapters::SupportToken::Supported)
                        .then(|| sentence(&c.reason))
                        .flatten(),
                })
            })
            .collect::<Result<Vec<_>, LifecycleError>>()?;
        Ok(ToolSummary {
            tool_id,
            display_name: Sentence::or_placeholder(listing.display_name).0,
            detected: listing.detected.present,
            detected_version: listing
                .detected
                .version
                .as_ref()
                .and_then(|v| VersionLabel::parse(&v.to_string()).ok()),
            compatibility: compatibility(listing.detected.compatibility),
            capabilities,
            adapter_ceiling: AdapterCeiling::parse(listing.adapter_ceiling.token())
                .map_err(|_| refused())?,
        })
    }
}

fn compatibility(c: adapters::Compatibility) -> Compatibility {
    Compatibility::parse(c.token()).unwrap_or(Compatibility::Unknown)
}

impl Lifecycle for DiscoveryOnlyBackend {
    fn knows_tool(&self, tool: &ToolId) -> bool {
        adapters::find(tool.as_str()).is_some()
    }

    fn list_tools(&self, _auth: &Authorization) -> Result<ToolList, LifecycleError> {
        let tools = adapters::list_tools(&self.path_env, &self.home)
            .iter()
            .map(DiscoveryOnlyBackend::summary)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ToolList { tools })
    }

    fn plan(
        &self,
        _auth: &ToolAuthorization,
        _args: &PlanArgs,
    ) -> Result<PlanView, LifecycleError> {
        Err(refused())
    }

    fn apply(
        &self,
        _auth: &ToolAuthorization,
        _plan: &PlanId,
    ) -> Result<ApplyView, LifecycleError> {
        Err(refused())
    }

    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        let descriptor = adapters::find(auth.tool().as_str()).ok_or(LifecycleError::UnknownTool)?;
        let listing = adapters::listing(
            descriptor,
            adapters::detect(descriptor, &self.path_env, &self.home),
        );
        let summary = DiscoveryOnlyBackend::summary(&listing)?;
        let (phase, level) = if summary.detected {
            (Phase::DetectedNotIntegrated, Level::DetectedNotIntegrated)
        } else {
            (Phase::NotInstalled, Level::NotInstalled)
        };
        let incompatible = summary.compatibility == Compatibility::Incompatible;
        let next = if summary.detected {
            NextLevelView {
                level: Level::PartiallyIntegrated,
                blocked_because: sentence(NO_BACKEND),
            }
        } else {
            NextLevelView {
                level: Level::DetectedNotIntegrated,
                blocked_because: sentence("the tool was not found on PATH or under HOME"),
            }
        };
        Ok(StatusView {
            tool_id: summary.tool_id,
            phase,
            state: if incompatible {
                StatusState::Incompatible
            } else {
                StatusState::Ladder
            },
            achieved_level: level,
            planned_level: None,
            adapter_ceiling: summary.adapter_ceiling,
            compatibility: summary.compatibility,
            evidence: Vec::new(),
            next_level: Some(next),
            observed_at_unix_secs: auth.now(),
            drift_mismatched: Vec::new(),
            state_reason: if incompatible {
                sentence("the detected version is outside the adapter's supported range")
            } else {
                None
            },
            state_remediation: if incompatible {
                sentence("install a supported version of the tool")
            } else {
                None
            },
            policy: None,
        })
    }

    fn verify(&self, _auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        Err(refused())
    }

    fn repair(&self, _auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        Err(refused())
    }

    fn remove(
        &self,
        _auth: &ToolAuthorization,
        _plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        Err(refused())
    }

    fn scoped_events(
        &self,
        _auth: &ToolAuthorization,
        _limit: u32,
        _since: u64,
    ) -> Result<ScopedEventList, LifecycleError> {
        Err(refused())
    }

    fn approval_relay(
        &self,
        _auth: &ToolAuthorization,
        _approval: &ApprovalId,
        _input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        Err(refused())
    }
}
