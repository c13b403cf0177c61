//! Gates whose `// kep:` comment names no KEP of the repository and which
//! no kep.yaml lists (a [`Code`] after linking, the [`Model`]) → the KEP
//! they belong to, by one written rule, listed in [`Code::adopted`].
//!
//! The comment often names the enhancement issue rather than the KEP
//! (`kep.k8s.io/3018` for KEP-3017), and that KEP's kep.yaml lists a gate
//! name the code never declared. The rule: such a gate goes to the one KEP
//! whose kep.yaml lists a gate the code does not declare and whose
//! milestones give the same release for every stage the gate went through
//! (alpha, beta, GA); no such KEP, or several: it stays unlinked.

use serde::Serialize;

use super::Code;
use crate::kep::domain::Stage;
use crate::model::Model;

/// A gate given to a KEP by the rule above.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Adopted {
    /// The gate.
    pub gate: String,
    /// The KEP numbers its `// kep:` comment names (none in the repository).
    pub comment: Vec<u32>,
    /// The KEP it now belongs to.
    pub kep: u32,
}

impl Code {
    /// Give each orphan gate to its KEP (see the module comment).
    pub(super) fn adopt_orphans(&mut self, model: &Model) {
        let numbers: std::collections::BTreeSet<u32> =
            model.keps.iter().filter_map(|k| k.number()).collect();
        let orphans: Vec<(String, Vec<u32>)> = self
            .keps_of
            .iter()
            .filter(|(_, keps)| keps.iter().all(|n| !numbers.contains(n)))
            .map(|(g, keps)| (g.clone(), keps.clone()))
            .collect();
        for (gate, comment) in orphans {
            let steps: Vec<(Stage, u32)> = self
                .gate_events(&gate)
                .into_iter()
                .filter_map(|(e, m)| {
                    let s = match e {
                        "alpha" => Stage::Alpha,
                        "beta" => Stage::Beta,
                        "stable" => Stage::Stable,
                        _ => return None,
                    };
                    Some((s, m))
                })
                .collect();
            if steps.is_empty() {
                continue;
            }
            let fits: Vec<u32> = model
                .keps
                .iter()
                .filter_map(|k| {
                    let n = k.number()?;
                    self.unknown.get(&n)?;
                    steps
                        .iter()
                        .all(|(s, m)| {
                            k.meta
                                .milestone
                                .release(s)
                                .is_some_and(|r| r.major == 1 && r.minor == *m)
                        })
                        .then_some(n)
                })
                .collect();
            let [n] = fits.as_slice() else { continue };
            for c in &comment {
                if let Some(gs) = self.gates_of.get_mut(c) {
                    gs.retain(|g| *g != gate);
                    if gs.is_empty() {
                        self.gates_of.remove(c);
                    }
                }
            }
            self.gates_of.entry(*n).or_default().push(gate.clone());
            self.keps_of.insert(gate.clone(), vec![*n]);
            self.adopted.push(Adopted {
                gate,
                comment,
                kep: *n,
            });
        }
    }
}
