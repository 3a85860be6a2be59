//! Property tests for `edit`.
