// hello() consumes the client: a second Hello cannot be written.
use devint::session::client::Client;

fn main() {
    let client = Client::new("ide", "1");
    let (_awaiting, _hello) = client.hello();
    let _ = client.hello();
}
