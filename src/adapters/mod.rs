//! `adapters` — placeholder; filled by its issue.
