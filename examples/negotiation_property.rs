//! A property test of version negotiation written against devint's public API, as a client
//! or runtime author would write one for their own build: for any offered set, the chosen
//! version is the highest offered version inside the window, never one not offered, and the
//! outcome is DEGRADED exactly when that version is 1.
//!
//! Run: `cargo run --example negotiation_property` (exits non-zero on a counterexample).

use devint::negotiate::{negotiate, Outcome};
use devint::version::{MAX_SUPPORTED, MIN_SUPPORTED};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn main() {
    let mut runner = TestRunner::new(Config {
        cases: 2_000,
        ..Config::default()
    });
    let offers = prop::collection::vec(0u32..10, 0..8);
    let result = runner.run(&offers, |offer| {
        let best_in_window = offer
            .iter()
            .copied()
            .filter(|v| (MIN_SUPPORTED.get()..=MAX_SUPPORTED.get()).contains(v))
            .max();
        match (negotiate(&offer, &[1]), best_in_window) {
            (Ok(agreement), Some(best)) => {
                prop_assert_eq!(agreement.version().get(), best);
                prop_assert!(offer.contains(&agreement.version().get()));
                prop_assert_eq!(agreement.outcome() == Outcome::Degraded, best == 1);
            }
            (Err(reason), None) => prop_assert!(!reason.remediation().is_empty()),
            (got, want) => prop_assert!(false, "offer {offer:?}: got {got:?}, want {want:?}"),
        }
        Ok(())
    });
    match result {
        Ok(()) => println!("negotiation property held for 2000 generated offers"),
        Err(e) => {
            eprintln!("negotiation property failed: {e}");
            std::process::exit(1);
        }
    }
}
