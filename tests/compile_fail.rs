//! Compile-time guarantees of the session, proven: each file under `tests/ui/` must fail to
//! compile, with the error pinned in its `.stderr` (regenerate with `TRYBUILD=overwrite`
//! after a toolchain change, and read the diff).
//!
//! - a verb cannot be called on `Client<Negotiated>` or `Client<Unauthenticated>`;
//! - `hello` cannot be called twice;
//! - a server `Connection<Unauthenticated>` cannot admit (`handle_request`) or answer a
//!   request before `Hello`;
//! - a `Connection<Unauthenticated>` cannot be built without `PeerVerified`, and
//!   `PeerVerified` cannot be built outside the transport;
//! - the backend cannot be called without a grant (`Authorization` cannot be built);
//! - a view's text field (`Sentence`) cannot be made from a `String`.

#[test]
fn session_typestates_refuse_what_the_state_does_not_allow() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
