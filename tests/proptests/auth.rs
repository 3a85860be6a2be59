//! Property tests for `auth`.
