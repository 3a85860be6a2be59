//! `provenance` — placeholder; filled by its issue.
