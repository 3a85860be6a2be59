//! `server` — placeholder; filled by its issue.
