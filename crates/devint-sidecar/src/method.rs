//! The method table of `devint.sidecar.v1`: every method name a host may call, the
//! notification the sidecar sends, and which DI-API verb each session method sends.
//!
//! This module owns the names (hosts rely on them; they never change within
//! `devint.sidecar.v1`) and the one match from a method to its verb, written without a
//! wildcard arm so a new method does not compile until it is classified.

use devint::verbs::Verb;

/// The protocol name and version, announced by `initialize`.
pub const PROTOCOL: &str = "devint.sidecar.v1";

/// The one notification the sidecar sends: a followed scoped event (or the end of a follow).
pub const EVENTS_EVENT: &str = "events/event";

/// A method of `devint.sidecar.v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Announce the protocol; must come first.
    Initialize,
    /// Where the runtime's socket is and whether it exists.
    RuntimeDiscover,
    /// Connect, negotiate, check the standing, load the token: a session.
    SessionOpen,
    /// Close a session after everything sent on it before.
    SessionClose,
    /// `list_tools`.
    ToolsList,
    /// `plan`.
    LifecyclePlan,
    /// `apply`.
    LifecycleApply,
    /// `status`.
    LifecycleStatus,
    /// `verify`.
    LifecycleVerify,
    /// `repair`.
    LifecycleRepair,
    /// `remove` (preview without a plan id).
    LifecycleRemove,
    /// `scoped_events`, once or followed as `events/event` notifications.
    EventsFollow,
    /// `approval_relay`.
    ApprovalRelay,
}

impl Method {
    /// Every method, in documentation order.
    pub const ALL: [Method; 13] = [
        Method::Initialize,
        Method::RuntimeDiscover,
        Method::SessionOpen,
        Method::SessionClose,
        Method::ToolsList,
        Method::LifecyclePlan,
        Method::LifecycleApply,
        Method::LifecycleStatus,
        Method::LifecycleVerify,
        Method::LifecycleRepair,
        Method::LifecycleRemove,
        Method::EventsFollow,
        Method::ApprovalRelay,
    ];

    /// The wire name.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Initialize => "initialize",
            Method::RuntimeDiscover => "runtime/discover",
            Method::SessionOpen => "session/open",
            Method::SessionClose => "session/close",
            Method::ToolsList => "tools/list",
            Method::LifecyclePlan => "lifecycle/plan",
            Method::LifecycleApply => "lifecycle/apply",
            Method::LifecycleStatus => "lifecycle/status",
            Method::LifecycleVerify => "lifecycle/verify",
            Method::LifecycleRepair => "lifecycle/repair",
            Method::LifecycleRemove => "lifecycle/remove",
            Method::EventsFollow => "events/follow",
            Method::ApprovalRelay => "approval/relay",
        }
    }

    /// The method with this exact name.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The DI-API verb a session method sends; `None` for the methods that send none.
    pub const fn verb(self) -> Option<Verb> {
        match self {
            Method::Initialize
            | Method::RuntimeDiscover
            | Method::SessionOpen
            | Method::SessionClose => None,
            Method::ToolsList => Some(Verb::ListTools),
            Method::LifecyclePlan => Some(Verb::Plan),
            Method::LifecycleApply => Some(Verb::Apply),
            Method::LifecycleStatus => Some(Verb::Status),
            Method::LifecycleVerify => Some(Verb::Verify),
            Method::LifecycleRepair => Some(Verb::Repair),
            Method::LifecycleRemove => Some(Verb::Remove),
            Method::EventsFollow => Some(Verb::ScopedEvents),
            Method::ApprovalRelay => Some(Verb::ApprovalRelay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_none() {
        for m in Method::ALL {
            assert_eq!(Method::parse(m.name()), Some(m));
        }
        for bad in [
            "",
            "Initialize",
            "tools/list ",
            "lifecycle/plans",
            "events/event",
        ] {
            assert_eq!(Method::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_verb_has_exactly_one_method() {
        let verbs: Vec<Verb> = Method::ALL.iter().filter_map(|m| m.verb()).collect();
        assert_eq!(verbs.len(), 9);
        for v in Verb::ALL {
            assert_eq!(verbs.iter().filter(|x| **x == v).count(), 1, "{v}");
        }
    }
}
