// A view's text field is a Sentence, and there is no conversion from a raw String.
use devint::verbs::Sentence;

fn main() {
    let _: Sentence = String::from("free text from the backend").into();
}
