//! The session core: connections whose type says what they may do, for the server and
//! the client. **Sans-IO**: this module does no IO and reads no clock; frames and `now`
//! come in as arguments, frames and audit events go out as return values. The only IO is
//! what the injected [`TokenResolver`](crate::auth::TokenResolver) and
//! [`Lifecycle`](crate::backend::Lifecycle) do.
//!
//! ## Driver contract (server)
//!
//! 1. The shell accepts a socket, checks the peer's uid (minting
//!    [`PeerVerified`](crate::peer::PeerVerified)) and makes a
//!    [`Connection<Unauthenticated>`](Connection) — there is no other constructor.
//! 2. For each decoded frame it calls [`AnyConnection::handle`]; for a decoder error,
//!    [`AnyConnection::handle_frame_error`]; at a handshake or idle timeout,
//!    [`AnyConnection::handle_timeout`].
//! 3. It acts on the returned [`Step`]: send the frame, record the audit events, close when
//!    told; or run the [`Dispatch`] off its async threads and send its [`Answer`] in
//!    request order.
//!
//! ## State diagram (server)
//!
//! ```text
//! Connection<Unauthenticated> ──Hello──▶ Connection<Negotiated> ──Request (§6 checks)──▶ Connection<Authorized>
//!        │ Request first                   │ second Hello          ▲                          │ answer / into_dispatch
//!        ▼                                 ▼                       └──────────────────────────┘
//!  Denied{0, PROTOCOL_VIOLATION}    Denied{0, PROTOCOL_VIOLATION}, audited, closed
//! ```
//!
//! The client mirrors it: [`Client<Unauthenticated>`](client::Client) → `hello()` →
//! `Client<AwaitingAck>` → `on_frame(HelloAck)` → `Client<Negotiated>` → `authorize(token)`
//! → `Client<Authorized>`.

mod any;
pub mod client;
mod denial;
#[cfg(feature = "fuzzing")]
pub mod fuzz_harness;
mod reply;
mod sentences;
mod server;

pub use any::{AnyConnection, ServerEnv, Step};
pub use denial::{denied, DenialCause};
pub use reply::Reply;
pub use server::{
    Admission, Answer, AtOnce, Authorized, Closing, Connection, ConnectionMeta, Dispatch,
    Handshake, Negotiated, Unauthenticated,
};
