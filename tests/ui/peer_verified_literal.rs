// PeerVerified is minted only by the transport's peer-credential check.
use devint::peer::PeerVerified;

fn main() {
    let _ = PeerVerified { uid: 1000 };
}
