//! Site build on the real corpus: clones `../shared/corpus/enhancements.bundle`
//! (or `$KEPSITE_CORPUS`, a bundle or a checkout) into a temp dir, builds the
//! site 5 times, and prints the median build time, the search index build time
//! and the bytes a first search for "kubelet" downloads.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kepsite::site::{self, SiteOptions, search};

fn corpus(tmp: &Path) -> Option<PathBuf> {
    let src = std::env::var("KEPSITE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/enhancements.bundle")
        });
    let src = if src.exists() {
        src
    } else {
        PathBuf::from("/work/shared/corpus/enhancements.bundle")
    };
    if src.is_dir() {
        return Some(src);
    }
    let dest = tmp.join("enhancements");
    let ok = std::process::Command::new("git")
        .args(["clone", "--quiet"])
        .arg(&src)
        .arg(&dest)
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(dest)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    let Some(root) = corpus(tmp.path()) else {
        eprintln!("corpus not found; set KEPSITE_CORPUS");
        return Ok(());
    };
    let t = Instant::now();
    let model = kepsite::model::load(&root, None, None)?;
    let keps = model.keps.len();
    let data = site::SiteData::new(model);
    println!("load+analysis+check: {:?} ({keps} KEPs)", t.elapsed());
    let opts = SiteOptions {
        out: tmp.path().join("public"),
        ..Default::default()
    };
    let mut times = Vec::new();
    let mut report = None;
    for _ in 0..5 {
        let t = Instant::now();
        report = Some(site::build(&data, &opts)?);
        times.push(t.elapsed());
    }
    println!("site build (median of 5): {:?} {:?}", median(times), report);

    let files = site::render_to_memory(&data, &opts)?;
    let index: search::SearchIndex = files
        .iter()
        .filter(|(k, _)| k.starts_with("search/"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let total: usize = index.values().map(Vec::len).sum();
    println!("search index: {} files, {} bytes", index.len(), total);
    println!(
        "first search for \"kubelet\" downloads {} bytes (meta {} + shard {} + snippets)",
        search::query_cost(&index, "kubelet", 12),
        index.get("search/meta.json").map_or(0, Vec::len),
        index.get("search/t/ku.json").map_or(0, Vec::len),
    );
    let docs = site::plan::plan(&data, &opts, &site::highlight::Highlighter::new()).search_docs;
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        std::hint::black_box(search::build(&docs));
        times.push(t.elapsed());
    }
    println!("search index build (median of 5): {:?}", median(times));
    Ok(())
}
