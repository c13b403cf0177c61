//! The model's lookups by KEP number and README path.

use std::collections::HashMap;

use crate::kep::Kep;

/// Number → the KEPs with it (in model order; a number shared is a finding),
/// and README path → KEP, so that lookups stay constant-time on corpora of
/// any size.
#[derive(Debug, Clone, Default)]
pub(super) struct KepIndex {
    pub(super) by_number: HashMap<u32, Vec<usize>>,
    pub(super) by_readme: HashMap<String, usize>,
}

impl KepIndex {
    pub(super) fn new(keps: &[Kep]) -> KepIndex {
        let mut index = KepIndex::default();
        for (i, k) in keps.iter().enumerate() {
            if let Some(n) = k.number() {
                index.by_number.entry(n).or_default().push(i);
            }
            if let Some(r) = &k.readme_path {
                index.by_readme.entry(r.clone()).or_insert(i);
            }
        }
        index
    }
}
