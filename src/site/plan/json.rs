//! `keps.json`: the records of `kepsite export`, serialized in parallel
//! into one buffer.

use rayon::prelude::*;

use super::{Handoff, Kit};

/// `keps.json` (the records of `kepsite export`), to the `sink`, before
/// the KEP pages. Each record is serialized twice: once to
/// count its bytes, then into its place in `keps.json`. So the records are
/// held once (107 MB on the 10x corpus, where a second copy for the join was
/// the build's peak), and not while the READMEs are rendered.
pub(super) fn json_files(kit: &Kit, sink: Handoff) {
    let data = kit.data;
    let history = data.history.as_ref().map(|h| crate::view::HistoryContext {
        history: h,
        now: data.now,
        stale_days: crate::site::STALE_DAYS,
    });
    let all = crate::timing::timed("plan: export json", || {
        let views = {
            let trackings = data.trackings();
            crate::view::all(
                &data.model,
                &data.analysis,
                &data.findings,
                history,
                &trackings,
            )
        };
        let sizes: Vec<usize> = views.par_iter().map(json_len).collect();
        let (mut all, ranges) = json_array_layout(&sizes);
        let slots = carve(&mut all, &ranges);
        views.par_iter().zip(slots).for_each(|(v, mut slot)| {
            // the same value, so the same length: it fills its slot exactly
            let _ = serde_json::to_writer(&mut slot, v);
            debug_assert!(
                slot.is_empty(),
                "a record serialized shorter the second time"
            );
        });
        all
    });
    (sink.file)("keps.json", &all);
}

/// The length of `v` as compact JSON.
fn json_len(v: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// A JSON array of elements of `sizes` bytes, one per line (`[a,\nb]\n`, so
/// `keps.json` holds the same values as `kepsite export`), with its brackets
/// and separators written and each element's place left empty: the buffer
/// and each element's range in it.
fn json_array_layout(sizes: &[usize]) -> (Vec<u8>, Vec<std::ops::Range<usize>>) {
    let total = 1 + sizes.iter().sum::<usize>() + 2 * sizes.len().saturating_sub(1) + 2;
    let mut all = vec![0u8; total];
    let mut ranges = Vec::with_capacity(sizes.len());
    all[0] = b'[';
    let mut at = 1;
    for (i, &n) in sizes.iter().enumerate() {
        if i > 0 {
            all[at..at + 2].copy_from_slice(b",\n");
            at += 2;
        }
        ranges.push(at..at + n);
        at += n;
    }
    all[at..].copy_from_slice(b"]\n");
    (all, ranges)
}

/// The disjoint places `ranges` (ascending) of `all`, to fill in parallel.
fn carve<'b>(all: &'b mut [u8], ranges: &[std::ops::Range<usize>]) -> Vec<&'b mut [u8]> {
    let mut slots = Vec::with_capacity(ranges.len());
    let mut rest = all;
    let mut at = 0;
    for r in ranges {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(r.start - at);
        let (slot, tail) = tail.split_at_mut(r.len());
        slots.push(slot);
        rest = tail;
        at = r.end;
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_array_layout_leaves_each_element_its_place() {
        let (mut all, ranges) = json_array_layout(&[3, 0, 2]);
        assert_eq!(ranges, vec![1..4, 6..6, 8..10]);
        for (slot, fill) in carve(&mut all, &ranges)
            .into_iter()
            .zip([&b"abc"[..], b"", b"de"])
        {
            slot.copy_from_slice(fill);
        }
        assert_eq!(all, b"[abc,\n,\nde]\n");
        let (empty, none) = json_array_layout(&[]);
        assert_eq!((empty, none), (b"[]\n".to_vec(), vec![]));
        let (one, r) = json_array_layout(&[json_len(&serde_json::json!({"a": 1}))]);
        assert_eq!((one.len(), r.len(), &r[0]), (10, 1, &(1..8)));
    }
}
