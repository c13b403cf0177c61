//! What the code read covers ([`super::Code`] → releases and gaps): the
//! releases to read (those the checkout tags or branches and those the
//! calendar knows, never a range up to a number from input), the releases
//! where a gate's stage can change (so that walks over releases visit
//! those, not every number up to `--current`), and, for each release, why
//! its code cannot be trusted to be complete: a revision not found, a file
//! that did not parse, a file or tree over the limits. A note that would
//! say "not landed" or "never reached" says "cannot tell" instead.

use std::collections::{BTreeMap, BTreeSet};

use super::{Code, Shot};
use crate::analysis::calendar;
use crate::kep::domain::Release;
use crate::repo::gates::Kubernetes;

/// The releases before `current` to read: those `k` has a tag or release
/// branch of, and those the calendar knows (read at their release day).
pub(super) fn releases_to_read(k: &Kubernetes, current: Release) -> BTreeSet<u32> {
    let mut minors = k.release_minors();
    minors.extend(calendar::known().iter().map(|c| c.release.minor));
    minors.retain(|m| *m < current.minor);
    minors
}

/// The releases up to `current` at which some gate's stage can change:
/// 0, each release read, and each `Version` a versioned spec names. Between
/// two of them every gate's stage is the same, so a walk that visits these
/// finds every first release at a stage that a walk over every number
/// would, in as many steps as there are specs.
pub(super) fn change_points(shots: &BTreeMap<u32, Shot>, current: Release) -> Vec<u32> {
    let mut out: BTreeSet<u32> = shots.keys().copied().collect();
    out.insert(0);
    let mut seen = BTreeSet::new();
    for shot in shots.values() {
        // Snapshots shared by several releases are read once.
        if !seen.insert(std::sync::Arc::as_ptr(&shot.snapshot)) {
            continue;
        }
        for gate in shot.snapshot.gates.values() {
            out.extend(gate.specs.iter().map(|s| s.minor));
        }
    }
    out.retain(|m| *m <= current.minor);
    out.into_iter().collect()
}

impl Code {
    /// Why the code of release 1.`minor` cannot be trusted to be complete,
    /// for people ("no commit of the checkout at or before the snapshot's
    /// date", "pkg/features/kube_features.go:812: syntax error: …, and 2
    /// more"); `None` when it was read whole, or when it is a release
    /// before the first one read (told by the versioned specs).
    pub fn unread(&self, minor: u32) -> Option<String> {
        let Some(shot) = self.shots.get(&minor) else {
            let first = self.shots.keys().next().copied();
            if minor >= self.current.minor {
                return Some(format!(
                    "no commit of {} at or before the snapshot's date",
                    self.source
                ));
            }
            return first
                .is_some_and(|f| minor > f)
                .then(|| format!("no revision of v1.{minor} found in {}", self.source));
        };
        let mut problems = shot.snapshot.unread();
        let p = problems.next()?;
        let more = problems.count();
        let at = if p.line > 0 {
            format!("{}:{}", p.file, p.line)
        } else {
            p.file.clone()
        };
        let more = match more {
            0 => String::new(),
            n => format!(", and {n} more"),
        };
        Some(format!("{} at {at}: {}{more}", shot.label, p.message))
    }

    /// The note for a KEP whose code the release's files may lack:
    /// "code not read for v1.37 (…): cannot tell".
    pub fn cannot_tell(&self, minor: u32) -> Option<String> {
        let why = self.unread(minor)?;
        Some(format!("code not read for v1.{minor} ({why}): cannot tell"))
    }

    /// One warning per release whose code was not read whole, for stderr.
    pub fn warn_unread(&self) {
        let mut minors: BTreeSet<u32> = self.shots.keys().copied().collect();
        minors.insert(self.current.minor);
        for minor in minors {
            if let Some(why) = self.unread(minor) {
                tracing::warn!(
                    "--kubernetes: the code of v1.{minor} was not read whole ({}): \
                     what it says of that release cannot tell what landed",
                    crate::escape::terminal(&why)
                );
            }
        }
    }
}
