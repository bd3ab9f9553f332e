//! What the tests of the family answers share.

use super::super::facts::{Derived, Facts};

/// The family answers of a text, with the text's own facts.
pub(super) fn answers(text: &str) -> Vec<Derived> {
    super::rules(text, &Facts::of(text))
}

/// The causes the families give a text, in order.
pub(super) fn family_causes(text: &str) -> Vec<String> {
    answers(text)
        .iter()
        .filter_map(|d| d.symptom.class.clone())
        .collect()
}
