//! The files beside the KEPs that the site may publish: judged once, when
//! first asked.

use rayon::prelude::*;

use super::Model;
use crate::repo;

impl Model {
    /// The files under keps/ beside the KEPs that the site may publish on
    /// its own origin (see [`repo::publishable`]), sorted.
    ///
    /// Judged in parallel the first time (each SVG is read; on one thread
    /// this was 4-6 ms of `check`'s wall time on the corpus), with no lock
    /// held while judging: a thread waiting for its own jobs may take a job
    /// that asks again, which would then judge them too rather than wait
    /// for itself. Callers about to ask from many jobs at once ask first.
    pub fn assets(&self) -> &[String] {
        if let Some(judged) = self.publishable.get() {
            return judged;
        }
        let judged: Vec<String> = self
            .asset_paths
            .par_iter()
            .filter(|a| repo::publishable(&self.source, a))
            .cloned()
            .collect();
        // the same list whoever sets it first
        self.publishable.get_or_init(|| judged)
    }
}

#[cfg(test)]
mod tests;
