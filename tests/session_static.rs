//! Static guarantees of the session types: every session can move to another thread (the
//! server shell runs connections on a multi-threaded runtime and dispatches off it), and no
//! proof can be duplicated — one `PeerVerified` vouches for one connection, one
//! `Authorization` for one call, one `Grant` for one request.

use devint::auth::Grant;
use devint::backend::{Authorization, ToolAuthorization};
use devint::peer::PeerVerified;
use devint::session::{
    client, client::Client, AnyConnection, Authorized, Connection, Dispatch, Negotiated,
    Unauthenticated,
};
use static_assertions::{assert_impl_all, assert_not_impl_any};

// Sessions are Send (and Sync: nothing in them is shared-mutable).
assert_impl_all!(Connection<Unauthenticated>: Send, Sync);
assert_impl_all!(Connection<Negotiated>: Send, Sync);
assert_impl_all!(Connection<Authorized>: Send, Sync);
assert_impl_all!(AnyConnection: Send, Sync);
assert_impl_all!(Dispatch: Send, Sync);
assert_impl_all!(Client<client::Unauthenticated>: Send, Sync);
assert_impl_all!(Client<client::AwaitingAck>: Send, Sync);
assert_impl_all!(Client<client::Negotiated>: Send, Sync);
assert_impl_all!(Client<client::Authorized>: Send, Sync);

// Proofs are not Clone (nor Copy).
assert_not_impl_any!(PeerVerified: Clone, Copy);
assert_not_impl_any!(Authorization: Clone, Copy);
assert_not_impl_any!(ToolAuthorization: Clone, Copy);
assert_not_impl_any!(Grant: Clone, Copy);
// Nor are the connections that hold them, nor a client holding a token.
assert_not_impl_any!(Connection<Unauthenticated>: Clone);
assert_not_impl_any!(Connection<Authorized>: Clone);
assert_not_impl_any!(Dispatch: Clone);
assert_not_impl_any!(Client<client::Authorized>: Clone);

#[test]
fn session_types_are_send_and_proofs_are_not_clone() {
    // The assertions above are checked at compile time; this test makes the file a target
    // that `cargo test` builds.
}
