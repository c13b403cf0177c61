//! Deprecations and removals in the code (a [`Code`], a KEP, a release →
//! the gate that shows it): the post's "Deprecations and removals" as the
//! gates record them.

use super::{Code, code_stage};
use crate::repo::gates::PreRelease;

impl Code {
    /// A gate of KEP `n` that became deprecated in 1.`minor` (the versioned
    /// spec's deprecated pre-release), or one removed from the code there
    /// before it reached GA; only when the KEP has no gate left at alpha,
    /// beta or GA there (a sub-gate deprecated or dropped beside a live
    /// gate is clean-up, not the feature going away), and a removal only
    /// when no gate of the KEP was GA the release before (the gates of a
    /// feature that reached GA dropped together is its clean-up, as
    /// KEP-2589's migration gates in v1.36).
    pub fn deprecated_in(&self, n: u32, minor: u32) -> Option<String> {
        let prev = minor.checked_sub(1)?;
        self.shots.get(&minor)?;
        let gates = self.gates_of.get(&n)?;
        let live = gates
            .iter()
            .any(|g| self.gate_stage(g, minor).and_then(code_stage).is_some());
        let was_ga = gates
            .iter()
            .any(|g| self.gate_stage(g, prev) == Some(PreRelease::Ga));
        gates.iter().find_map(|g| {
            let now = self.gate_stage(g, minor);
            let was = self.gate_stage(g, prev);
            let deprecated =
                now == Some(PreRelease::Deprecated) && was != Some(PreRelease::Deprecated);
            let removed = !was_ga && now.is_none() && was.is_some_and(|p| p != PreRelease::Ga);
            (!live && (deprecated || removed)).then(|| g.clone())
        })
    }

    /// The first release of `range` where KEP `n`'s code records a
    /// deprecation ([`Code::deprecated_in`]), with the gate.
    pub fn first_deprecation(&self, n: u32) -> Option<(u32, String)> {
        self.minors
            .iter()
            .find_map(|&m| Some((m, self.deprecated_in(n, m)?)))
    }
}
