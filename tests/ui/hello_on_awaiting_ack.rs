// A client waiting for HelloAck has no hello() either.
use devint::session::client::Client;

fn main() {
    let (awaiting, _hello) = Client::new("ide", "1").hello();
    let _ = awaiting.hello();
}
