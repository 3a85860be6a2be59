// Connection<Unauthenticated> has one constructor, and it takes the PeerVerified proof.
use devint::session::Connection;

fn main() {
    let _ = Connection::new(1000, 1);
}
