//! [`PlanStore`]: the plans this runtime has shown, each bound to the token that authored
//! it, expiring, consumed by the one call that executes it, in a bounded store.
//!
//! Owns plan admission and the refusals: someone else's plan, an expired plan, a consumed
//! plan, a plan for another tool or of the wrong kind. It must never let a plan execute
//! twice and never let a token execute a plan it did not author.

use std::collections::VecDeque;
use std::path::PathBuf;

use super::receipt::{OwnedKey, ProfileRecord};
use super::sync::Mutex;
use crate::edit::SettingsFormat;
use devint::auth::TokenId;
use devint::time::UnixSecs;
use devint::verbs::{Level, PlanId, ReceiptId, SettingsScope, ToolId};

/// The most plans kept; beyond it the oldest expired or consumed (else the oldest) goes.
pub const PLAN_CAPACITY: usize = 256;

/// An install plan: what apply will write into one settings file.
#[derive(Debug, Clone)]
pub struct InstallPlan {
    /// The scope.
    pub scope: SettingsScope,
    /// The settings file.
    pub target: PathBuf,
    /// Its format.
    pub format: SettingsFormat,
    /// The keys we will own (values stay on the trusted side).
    pub keys: Vec<OwnedKey>,
    /// The file's digest when planned (`None`: absent).
    pub pre_digest: Option<String>,
    /// The digest of the text apply will write.
    pub post_digest: Option<String>,
    /// The profile used.
    pub profile: ProfileRecord,
    /// The planned level.
    pub planned_level: Level,
    /// Why apply must refuse (a settings file that does not parse, say).
    pub blocked: Option<String>,
}

/// A removal plan: the integrations remove will undo, as they were previewed.
#[derive(Debug, Clone)]
pub struct RemovalPlan {
    /// Each scope with a receipt when previewed, and that receipt's id: an integration
    /// applied or repaired since has another receipt, and is not removed on this plan's word.
    pub scopes: Vec<(SettingsScope, ReceiptId)>,
}

/// What a plan does.
#[derive(Debug, Clone)]
pub enum PlanBody {
    /// Install.
    Install(Box<InstallPlan>),
    /// Remove.
    Removal(RemovalPlan),
}

/// The two kinds of plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlanKind {
    Install,
    Removal,
}

impl PlanKind {
    fn of(body: &PlanBody) -> PlanKind {
        match body {
            PlanBody::Install(_) => PlanKind::Install,
            PlanBody::Removal(_) => PlanKind::Removal,
        }
    }
}

/// One stored plan.
#[derive(Debug, Clone)]
pub struct StoredPlan {
    /// Its id.
    pub id: PlanId,
    /// The tool.
    pub tool: ToolId,
    /// The authoring token.
    pub token: TokenId,
    /// Expiry (unix seconds, exclusive).
    pub expires_at: UnixSecs,
    /// Whether it has been executed.
    pub consumed: bool,
    /// What it does.
    pub body: PlanBody,
}

/// Why a plan id was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PlanRefusal {
    /// No such plan (never made, or evicted).
    #[error("no plan has this id (it was never made here, or the runtime restarted); plan again")]
    Unknown,
    /// Another token authored it.
    #[error("this plan was made by another client's token; a plan can only be executed by the token that made it — plan again with yours")]
    OtherToken,
    /// Its lifetime is over.
    #[error("this plan has expired; plan again and execute the new plan promptly")]
    Expired,
    /// It was executed already.
    #[error("this plan was already executed; plan again to make another change")]
    Consumed,
    /// It is for another tool.
    #[error("this plan is for another tool; use the plan made for this tool")]
    OtherTool,
    /// An install plan given to remove, or a removal plan given to apply.
    #[error("this plan is of the other kind (install vs removal); apply takes install plans, remove takes removal plans")]
    WrongKind,
}

/// The bounded plan store.
///
/// Its lock comes from `sync.rs` (`loom`'s under `cfg(loom)`), so the model in
/// `crates/devint-runtime/tests/loom_plans.rs` checks that two concurrent takes of one plan execute it once.
#[derive(Default)]
pub struct PlanStore {
    plans: Mutex<VecDeque<StoredPlan>>,
}

impl std::fmt::Debug for PlanStore {
    // Never takes the lock: a `Debug` call while a take holds it must not deadlock.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanStore").finish_non_exhaustive()
    }
}

impl PlanStore {
    /// Keeps `plan`, evicting when full.
    pub fn insert(&self, plan: StoredPlan, now: UnixSecs) {
        let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        while plans.len() >= PLAN_CAPACITY {
            let dead = plans
                .iter()
                .position(|p| p.consumed || p.expires_at <= now)
                .unwrap_or(0);
            plans.remove(dead);
        }
        plans.push_back(plan);
    }

    /// Takes the install plan `id` for execution by `token` on `tool`: checks binding, tool,
    /// consumption, expiry and kind, and marks it consumed.
    pub fn take_install(
        &self,
        id: &PlanId,
        tool: &ToolId,
        token: &TokenId,
        now: UnixSecs,
    ) -> Result<Box<InstallPlan>, PlanRefusal> {
        match self.take(id, tool, token, now, PlanKind::Install)? {
            PlanBody::Install(plan) => Ok(plan),
            PlanBody::Removal(_) => Err(PlanRefusal::WrongKind),
        }
    }

    /// Takes the removal plan `id` for execution by `token` on `tool`, as
    /// [`PlanStore::take_install`] does an install plan.
    pub fn take_removal(
        &self,
        id: &PlanId,
        tool: &ToolId,
        token: &TokenId,
        now: UnixSecs,
    ) -> Result<RemovalPlan, PlanRefusal> {
        match self.take(id, tool, token, now, PlanKind::Removal)? {
            PlanBody::Removal(plan) => Ok(plan),
            PlanBody::Install(_) => Err(PlanRefusal::WrongKind),
        }
    }

    /// The one check-and-consume, under the store's lock.
    fn take(
        &self,
        id: &PlanId,
        tool: &ToolId,
        token: &TokenId,
        now: UnixSecs,
        kind: PlanKind,
    ) -> Result<PlanBody, PlanRefusal> {
        let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        let plan = plans
            .iter_mut()
            .find(|p| &p.id == id)
            .ok_or(PlanRefusal::Unknown)?;
        if &plan.token != token {
            return Err(PlanRefusal::OtherToken);
        }
        if &plan.tool != tool {
            return Err(PlanRefusal::OtherTool);
        }
        if plan.consumed {
            return Err(PlanRefusal::Consumed);
        }
        if now >= plan.expires_at {
            return Err(PlanRefusal::Expired);
        }
        if PlanKind::of(&plan.body) != kind {
            return Err(PlanRefusal::WrongKind);
        }
        plan.consumed = true;
        Ok(plan.body.clone())
    }

    /// Whether a live install plan exists for `tool` (a removal plan is only a preview: no
    /// status reports it).
    pub fn pending_install(&self, tool: &ToolId, now: UnixSecs) -> bool {
        let plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        plans.iter().any(|p| {
            &p.tool == tool
                && !p.consumed
                && now < p.expires_at
                && PlanKind::of(&p.body) == PlanKind::Install
        })
    }

    /// How many plans are kept.
    pub fn len(&self) -> usize {
        self.plans.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}
