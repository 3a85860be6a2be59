//! `negotiate` — placeholder; filled by its issue.
