//! Build the site for a repository: `build_site REPO OUT [BASE_URL] [REV]`.
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let root = std::path::Path::new(args.get(1).map_or("content", String::as_str));
    let out = std::path::PathBuf::from(args.get(2).map_or("/tmp/kepsite-out", String::as_str));
    let t = std::time::Instant::now();
    let model = kepsite::model::load(root, args.get(4).map(String::as_str), None)?;
    let findings = kepsite::analysis::findings::check(&model);
    let loaded = t.elapsed();
    let mut opts = kepsite::site::SiteOptions {
        out,
        ..Default::default()
    };
    if let Some(b) = args.get(3) {
        opts.base_url = b.clone();
    }
    let t = std::time::Instant::now();
    let report = kepsite::site::build(&model, &findings, &opts)?;
    println!("load {loaded:?} build {:?} {report:?}", t.elapsed());
    Ok(())
}
