//! Property tests for `negotiate`.
