//! The closed verb set (spec §3 `Verb`, §6) and the one table from verb to its rules.
//!
//! This module owns what a verb *is*: its wire discriminant, its snake_case token, whether
//! it is tool-scoped and mutating, and the first DI-API version that has it. It must never
//! grow a verb that checks, decides or audits (ADR 0030 forbidden design 6): the set is
//! pinned by a test against the spec.

mod verb;

pub use verb::{UnknownVerb, Verb, VerbRule, VerbSet};
