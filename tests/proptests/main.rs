//! Property tests, one module per area. Run with `cargo test --test proptests`.

mod auth;
mod negotiate;
mod session;
mod tools_response;
mod wire;
