//! Property tests, one module per area. Run with `cargo test --test proptests`.

mod auth;
mod direct;
mod negotiate;
mod session;
mod status_response;
mod tools_response;
mod wire;
