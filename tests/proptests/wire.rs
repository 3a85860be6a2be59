//! Property tests for `wire`.
