// Before Hello a server connection admits no request: the spec §6 checks that lead to the
// backend (`handle_request`) and answering a call (`answer`) exist only after negotiation.
use devint::auth::LiveBook;
use devint::backend::Lifecycle;
use devint::session::{Connection, Unauthenticated};
use devint::time::UnixSecs;
use devint::wire::pb;

pub fn admit(conn: Connection<Unauthenticated>, backend: &dyn Lifecycle) {
    let request = pb::Request::default();
    let _ = conn.handle_request(&request, &LiveBook::default(), backend, UnixSecs::EPOCH);
}

pub fn answer(conn: Connection<Unauthenticated>, backend: &dyn Lifecycle) {
    let _ = conn.answer(backend, UnixSecs::EPOCH);
}

fn main() {}
