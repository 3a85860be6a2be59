// A connection cannot be assembled field by field, skipping the proof.
use devint::session::{Connection, ConnectionMeta, Unauthenticated};

pub fn make(state: Unauthenticated) -> Connection<Unauthenticated> {
    Connection { meta: ConnectionMeta { id: 1, peer_uid: 1000 }, state }
}

fn main() {}
