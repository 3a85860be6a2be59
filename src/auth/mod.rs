//! `auth` — placeholder; filled by its issue.
