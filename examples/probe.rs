//! Development probe: load a repository and print counts and selected findings.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let t = std::time::Instant::now();
    let m = kepsite::model::load(
        std::path::Path::new(&args[1]),
        args.get(2).map(|s| s.as_str()),
        None,
    )
    .unwrap();
    let f = kepsite::analysis::findings::check(&m);
    eprintln!("load+check {:?}", t.elapsed());
    println!(
        "keps {} prr-required {}",
        m.keps.len(),
        m.keps
            .iter()
            .filter(|k| kepsite::analysis::findings::prr_required(k))
            .count()
    );
    let mut counts = std::collections::BTreeMap::new();
    for x in &f {
        *counts.entry(x.rule).or_insert(0) += 1;
    }
    println!("{counts:?}");
    for x in &f {
        if [
            "status-enum",
            "stage-enum",
            "implemented-not-stable",
            "date-invalid",
            "prr-file-missing",
            "prr-stage-missing",
            "prr-approver-invalid",
            "yaml-parse",
        ]
        .contains(&x.rule)
        {
            println!("  {} {}:{:?} {}", x.rule, x.path, x.line, x.message);
        }
    }
}
