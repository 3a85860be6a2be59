//! Property tests for `negotiate` (spec §5).

use devint::negotiate::{negotiate, IncompatibleReason, Outcome};
use devint::version::{MAX_SUPPORTED, MIN_SUPPORTED};
use proptest::prelude::*;

fn offers() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(prop_oneof![0u32..=8, any::<u32>()], 0..8)
}

proptest! {
    #[test]
    fn picks_the_maximum_of_the_offered_set_within_the_window(offer in offers()) {
        let expected = offer.iter().copied().filter(|v| (MIN_SUPPORTED.get()..=MAX_SUPPORTED.get()).contains(v)).max();
        match (negotiate(&offer, &[1]), expected) {
            (Ok(a), Some(v)) => {
                prop_assert_eq!(a.version().get(), v);
                prop_assert!(offer.contains(&a.version().get()), "never a version not offered");
                prop_assert_eq!(a.outcome() == Outcome::Degraded, a.version() == MIN_SUPPORTED);
            }
            (Err(reason), None) => {
                if offer.is_empty() {
                    prop_assert_eq!(reason, IncompatibleReason::NoVersionOffered);
                } else {
                    prop_assert!(reason != IncompatibleReason::NoVersionOffered);
                    prop_assert!(reason != IncompatibleReason::SchemaMismatch);
                }
            }
            (got, want) => prop_assert!(false, "offer {:?}: got {:?}, want {:?}", offer, got, want),
        }
    }

    #[test]
    fn order_and_duplicates_do_not_matter(mut offer in offers(), dup in 0usize..4) {
        let first = negotiate(&offer, &[1]);
        if let Some(&x) = offer.first() {
            for _ in 0..dup { offer.push(x); }
        }
        offer.reverse();
        prop_assert_eq!(first, negotiate(&offer, &[1]));
    }

    #[test]
    fn sets_outside_the_window_are_incompatible(offer in prop::collection::vec(prop_oneof![Just(0u32), 6u32..], 0..6)) {
        prop_assert!(negotiate(&offer, &[1]).is_err());
    }

    #[test]
    fn schema_without_1_is_incompatible_when_versions_overlap(v in 1u32..=5, schemas in prop::collection::vec(2u32.., 0..4)) {
        prop_assert_eq!(negotiate(&[v], &schemas), Err(IncompatibleReason::SchemaMismatch));
    }
}
