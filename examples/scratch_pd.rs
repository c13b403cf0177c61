use std::time::Instant;
fn main() {
    let root = std::env::args().nth(1).unwrap();
    let texts: Vec<String> = walk(std::path::Path::new(&root)).into_iter().map(|e| std::fs::read_to_string(e).unwrap()).collect();
    let only_doc = std::env::var_os("ONLY_DOC").is_some();
    for _ in 0..if only_doc { 3 } else { 5 } {
        let t = Instant::now(); let mut n = 0usize;
        if !only_doc { for x in &texts { for _ in pulldown_cmark::Parser::new_ext(x, kepsite::kep::document::markdown_options()).into_offset_iter() { n += 1; } } }
        let pd = t.elapsed();
        let t = Instant::now();
        for x in &texts { let d = kepsite::kep::document::parse(x); n += d.sections.len(); }
        println!("{n} pulldown {:?}, document {:?}", pd, t.elapsed());
    }
}
fn walk(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(p).unwrap() { let e = e.unwrap().path();
        if e.is_dir() { out.extend(walk(&e)); } else if e.extension().is_some_and(|x| x == "md") { out.push(e); } }
    out
}
