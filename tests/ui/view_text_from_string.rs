// A view's text field cannot be filled with a raw String.
use devint::verbs::{CapabilityName, UnsupportedMechanismView};

fn main() {
    let _ = UnsupportedMechanismView {
        capability: CapabilityName::Hooks,
        reason: String::from("whatever the backend had in hand"),
    };
}
