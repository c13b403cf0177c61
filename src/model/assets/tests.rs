//! [`Model::assets`] asked from many parallel jobs at once, as a check
//! asks from every KEP's job.

use rayon::prelude::*;

use super::super::*;

/// The paths of `n` files beside one KEP: images, and every third one a
/// file the site may not publish (an archive; an SVG that is not there
/// to be read).
fn files(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i % 3 {
            0 => format!("keps/sig-node/2400-swap/img-{i:04}.png"),
            1 => format!("keps/sig-node/2400-swap/img-{i:04}.svg"),
            _ => format!("keps/sig-node/2400-swap/data-{i:04}.zip"),
        })
        .collect()
}

/// A model whose KEP has `files` beside it.
fn with_files(files: Vec<String>) -> Model {
    let inputs = [
        (
            "keps/sig-node/2400-swap/kep.yaml",
            "title: Swap\nkep-number: 2400\n",
        ),
        ("keps/sig-node/2400-swap/README.md", "# Swap\n"),
    ];
    let mut snapshot = RepoSnapshot::from_files(&inputs);
    snapshot.assets = files;
    from_snapshot(snapshot, None)
}

/// The first to ask judges the assets in parallel (no lock held while
/// judging, so a worker waiting for its judging jobs may take another
/// job that asks again). Asked from 256 jobs on 8 workers at once, each
/// job gets the publishable files, in order; the answer is awaited with a
/// bound, so a hang fails the test rather than stalling the suite.
#[test]
fn assets_asked_from_many_jobs_at_once_agree() {
    let all = files(1500);
    let expected: Vec<String> = all
        .iter()
        .filter(|p| p.ends_with(".png"))
        .cloned()
        .collect();
    assert_eq!(expected.len(), 500);
    for _ in 0..3 {
        let model = std::sync::Arc::new(with_files(all.clone()));
        let expected = expected.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // more workers than this machine may have cores
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(8)
                .build()
                .unwrap();
            let same: Vec<bool> = pool.install(|| {
                (0..256)
                    .into_par_iter()
                    .map(|_| model.assets() == expected.as_slice())
                    .collect()
            });
            let _ = tx.send(same);
        });
        let same = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the jobs asking for the assets never finished");
        assert_eq!(same.len(), 256);
        assert!(same.iter().all(|&s| s), "a job got another list");
    }
}
