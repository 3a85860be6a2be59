// A negotiated client holds no token: it has no verb methods.
use devint::session::client::Negotiated;
use devint::session::client::Client;

pub fn call(mut client: Client<Negotiated>) {
    let _ = client.list_tools();
}

fn main() {}
