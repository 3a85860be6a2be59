//! Property tests for `session`.
