// Before Hello a client can only say hello.
use devint::session::client::Client;

fn main() {
    let mut client = Client::new("ide", "1");
    let _ = client.list_tools();
}
