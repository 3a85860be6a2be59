//! `lifecycle` — placeholder; filled by its issue.
