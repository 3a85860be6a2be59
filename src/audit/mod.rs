//! `audit` — placeholder; filled by its issue.
