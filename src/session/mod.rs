//! `session` — placeholder; filled by its issue.
