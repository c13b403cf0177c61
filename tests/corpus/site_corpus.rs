//! The static site built from the real corpus (../shared/corpus): every
//! internal link and asset reference resolves, and every old-style
//! `/keps/<sig>/<dir>/` URL leads to a KEP page.

use std::collections::{BTreeMap, BTreeSet};

use kepsite::project::Input;
use kepsite::site::{self, SiteOptions};

use crate::shared::corpus;
use crate::support::{check_links, files, links, load_files, resolve_link, unescape};

/// A subpath base, so that links missing the base show up as broken.
const BASE: &str = "/enhancements/";

#[test]
fn corpus_site_links_and_redirects_resolve() {
    // With Kubernetes' feature gates (`--kubernetes`): the KEP, release and
    // feature-gate pages show them, and their links resolve too.
    let data = load_files(&Input::at(corpus()).kubernetes(crate::shared::kubernetes()));
    let model = &data.model;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    let opts = SiteOptions {
        out: out.clone(),
        base_url: BASE.into(),
        ..Default::default()
    };
    let report = site::build(data.clone(), &opts).expect("the corpus site builds");
    assert!(report.pages > model.keps.len(), "{report:?}");
    let all = files(&out);
    // The corpus HEAD (2026-07-24) is past v1.37's Code Freeze (2026-07-23):
    // its release page says so (issue 22).
    let v137 = String::from_utf8_lossy(&all["releases/v1.37/index.html"]).to_string();
    assert!(
        v137.contains("Past Code Freeze</strong> (2026-07-23)"),
        "{v137}"
    );

    let page = |p: &str| String::from_utf8_lossy(&all[p]).to_string();
    // Issue 46: the release in progress's page links to its issue comments,
    // where KEP-5683 (met the checklist after the deadline) is among the
    // exceptions, pointed to the exception process.
    assert!(
        v137.contains("releases/v1.37/comments/\">issue comments</a> (at Code Freeze)"),
        "{v137}"
    );
    let comments = page("releases/v1.37/comments/index.html");
    let exceptions = comments
        .split("<section aria-labelledby=\"exception\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("an exception section");
    assert!(exceptions.contains("id=\"kep-5683\""), "{exceptions}");
    let k5683 = exceptions.split("id=\"c-5683\"").nth(1).unwrap();
    let k5683 = &k5683[..k5683.find("</pre>").unwrap()];
    assert!(
        k5683.contains("releases&#x2F;EXCEPTIONS.md") || k5683.contains("releases/EXCEPTIONS.md"),
        "{k5683}"
    );
    assert!(
        !k5683.contains("tracked&#x2F;yes") && !k5683.contains("tracked/yes"),
        "{k5683}"
    );
    assert!(page("sigs/sig-node/index.html").contains("id=\"outreach-text\""));
    let k4639 = page("keps/4639/index.html");
    assert!(
        k4639.contains("In Kubernetes&#x27; code") || k4639.contains("In Kubernetes' code"),
        "{k4639}"
    );
    assert!(
        k4639.contains("<code>ImageVolume</code>: 1.31 Alpha · 1.33 Beta · 1.36 GA"),
        "{k4639}"
    );
    assert!(
        k4639.contains("kep.yaml says beta in v1.34; gate ImageVolume reached Beta in v1.33"),
        "{k4639}"
    );
    let gates = page("feature-gates/index.html");
    assert!(
        gates.contains("<th scope=\"col\">In the code</th>"),
        "{gates}"
    );
    assert!(
        gates.contains("1.31 Alpha · 1.33 Beta · 1.36 GA"),
        "{gates}"
    );
    assert!(
        v137.contains("code landed: gate CompositePodGroup Alpha in 1.37"),
        "{v137}"
    );

    let (checked, broken) = check_links(&all, BASE);
    assert!(checked > 15_000, "only {checked} links checked");
    assert!(
        broken.is_empty(),
        "{} broken links, first 40:\n{}",
        broken.len(),
        broken
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );

    // Table-of-contents entries point at headings on their page. (Links
    // written inside READMEs are not checked: about a hundred of them name
    // headings that do not exist on GitHub either.)
    let mut toc_links = 0;
    let mut toc_broken = Vec::new();
    for (page, bytes) in all.iter().filter(|(p, _)| p.ends_with(".html")) {
        let html = String::from_utf8_lossy(bytes);
        let Some(toc) = html
            .split_once("<nav class=\"toc\"")
            .and_then(|(_, rest)| rest.split_once("</nav>"))
            .map(|(toc, _)| toc)
        else {
            continue;
        };
        let ids: BTreeSet<String> = html
            .split(" id=\"")
            .skip(1)
            .filter_map(|s| s.split_once('"').map(|(id, _)| unescape(id)))
            .collect();
        for link in links(toc) {
            let Some(id) = link.strip_prefix('#') else {
                continue;
            };
            toc_links += 1;
            if !ids.contains(id) {
                toc_broken.push(format!("{page}: #{id}"));
            }
        }
    }
    assert!(toc_links > 10_000, "only {toc_links} TOC links");
    assert!(toc_broken.is_empty(), "{}", toc_broken.join("\n"));

    // Every KEP's directory URL exists: the page itself, or a line of
    // _redirects (which the 404 page's script and serve read too) to its
    // page. A directory's number is not always the KEP's (2043 → 1884).
    let lines = String::from_utf8_lossy(&all["_redirects"]).to_string();
    let moved: BTreeMap<&str, &str> = lines
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut w = l.split(' ');
            Some((w.next()?, w.next()?))
        })
        .collect();
    let mut redirects = 0;
    let mut problems = Vec::new();
    for kep in &model.keps {
        let rel = kep.path.strip_prefix("keps/").unwrap_or(&kep.path);
        let dir = format!("keps/{}/", rel.strip_suffix(".md").unwrap_or(rel));
        let file = format!("{dir}index.html");
        if let Some(bytes) = all.get(&file) {
            if !String::from_utf8_lossy(bytes).contains("<article class=\"kep\">") {
                problems.push(format!("{file}: not a KEP page"));
            }
            continue;
        }
        let from = format!("{BASE}{dir}");
        let Some(to) = moved.get(from.as_str()) else {
            problems.push(format!("{}: no {file} and no redirect", kep.path));
            continue;
        };
        redirects += 1;
        let t = format!("{}index.html", to.strip_prefix(BASE).unwrap_or(to));
        match all.get(&t) {
            Some(page) if String::from_utf8_lossy(page).contains("<article class=\"kep\">") => {}
            _ => problems.push(format!("{from} -> {to}: no KEP page {t}")),
        }
    }
    assert!(
        redirects * 10 > model.keps.len() * 9,
        "only {redirects} redirects"
    );
    assert_eq!(redirects, moved.len(), "a redirect for each moved KEP only");
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // The search index and the sitemap name existing pages too.
    let meta: serde_json::Value = serde_json::from_slice(&all["search/meta.json"]).unwrap();
    let docs = meta["docs"].as_array().unwrap();
    assert_eq!(docs.len(), model.keps.len());
    let missing: Vec<_> = docs
        .iter()
        .filter_map(|d| d[4].as_str())
        .filter(|u| !all.contains_key(&format!("{u}index.html")))
        .collect();
    assert!(
        missing.is_empty(),
        "search results without a page: {missing:?}"
    );
    let sitemap = String::from_utf8_lossy(&all["sitemap.xml"]).into_owned();
    let locs: BTreeMap<&str, Option<String>> = sitemap
        .split("<loc>")
        .skip(1)
        .filter_map(|s| s.split_once("</loc>").map(|(u, _)| u))
        .map(|u| (u, resolve_link("sitemap.xml", u, BASE).ok().flatten()))
        .collect();
    assert!(locs.len() > model.keps.len());
    let bad: Vec<_> = locs
        .iter()
        .filter(|(_, f)| f.as_ref().is_none_or(|f| !all.contains_key(f)))
        .map(|(u, _)| *u)
        .collect();
    assert!(bad.is_empty(), "sitemap entries without a page: {bad:?}");
}

/// Every README of the real corpus, rendered, is safe as a browser parses it,
/// and raw HTML leaves the page's structure alone.
#[test]
fn corpus_readmes_render_to_safe_html() {
    let model = load_files(&Input::at(corpus())).model;
    let mut with_raw_html = 0;
    for kep in &model.keps {
        if kep.readme_text().contains("</") || kep.readme_text().contains("<img") {
            with_raw_html += 1;
        }
        let html = crate::dom::render_readme(kep.readme_text());
        let problems = crate::dom::dom_problems(&html);
        assert!(problems.is_empty(), "{}: {problems:?}", kep.path);
        let escapes = crate::dom::escapes(&html);
        assert!(escapes.is_empty(), "{}: {escapes:?}", kep.path);
        for tag in ["div", "details", "table", "p"] {
            let opens = html.matches(&format!("<{tag}>")).count()
                + html.matches(&format!("<{tag} ")).count();
            let closes = html.matches(&format!("</{tag}>")).count();
            assert!(
                closes <= opens,
                "{}: {closes} </{tag}> for {opens} <{tag}>",
                kep.path
            );
        }
    }
    assert!(
        with_raw_html > 100,
        "only {with_raw_html} READMEs with raw HTML"
    );
}

/// Links between KEPs stay on the portal (issue 22): with the history, a
/// README link to a KEP's directory, README, kep.yaml or a path it had
/// before (a legacy single file, an old directory, one renamed when it
/// moved to the directory layout) leads to its portal page. Fewer than 10
/// such links are left pointing at GitHub on the corpus (46 before
/// legacy files were paired with their directories by title).
#[test]
fn corpus_readme_links_to_keps_stay_on_the_portal() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let run = crate::support::kepsite(&[
        "build",
        "--no-cache",
        "--repo",
        corpus().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let model = load_files(&Input::at(corpus())).model;
    // Every path that names a KEP: today's KEPs, and (read from git, not
    // from kepsite's history) every single-file KEP the repository ever had
    // (a `.md` other than README.md outside a numbered KEP directory) and
    // every KEP directory it ever had.
    let mut kep_paths: BTreeSet<String> = BTreeSet::new();
    for k in &model.keps {
        kep_paths.insert(k.path.clone());
        kep_paths.insert(k.metadata_path.clone());
        kep_paths.extend(k.readme_path.clone());
    }
    let ever = crate::support::git(corpus(), &["log", "--format=", "--name-only", "--", "keps"]);
    let numbered = |dir: &str| {
        dir.rsplit('/').next().is_some_and(|d| {
            d.split('-')
                .next()
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                && d.contains('-')
        })
    };
    for p in ever
        .lines()
        .filter(|p| !p.starts_with("keps/prod-readiness/"))
    {
        let (dir, file) = p.rsplit_once('/').unwrap_or(("", p));
        if file == "kep.yaml" {
            kep_paths.insert(dir.to_string());
            kep_paths.insert(format!("{dir}/README.md"));
            kep_paths.insert(p.to_string());
        } else if file.ends_with(".md") && file != "README.md" && !numbered(dir) {
            kep_paths.insert(p.to_string());
        }
    }
    let all = files(&out);
    let mut left = Vec::new();
    for (page, bytes) in all
        .iter()
        .filter(|(p, _)| p.starts_with("keps/") && p.ends_with("index.html"))
    {
        let html = String::from_utf8_lossy(bytes);
        let Some((_, body)) = html.split_once("<div class=\"markdown") else {
            continue;
        };
        for href in links(body) {
            let href = unescape(&href);
            let Some(rest) = href
                .strip_prefix("https://github.com/kubernetes/enhancements/blob/")
                .or_else(|| href.strip_prefix("https://github.com/kubernetes/enhancements/tree/"))
            else {
                continue;
            };
            let path = rest.split_once('/').map_or("", |(_, p)| p);
            let path = path.split(['#', '?']).next().unwrap_or_default();
            if kep_paths.contains(path.trim_end_matches('/')) {
                left.push(format!("{page}: {href}"));
            }
        }
    }
    assert!(
        left.len() < 10,
        "{} links to KEPs left GitHub:\n{}",
        left.len(),
        left.join("\n")
    );

    // `replaces: n/a` (and the like) is said as text, not a link to
    // `.../blob/master/n/a` (issue 22: 25 KEP pages had one).
    let placeholder = |v: &String| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "n/a" | "none" | "tbd"
        )
    };
    let with_placeholders = model
        .keps
        .iter()
        .filter(|k| {
            k.meta
                .replaces
                .iter()
                .chain(&k.meta.superseded_by)
                .any(placeholder)
        })
        .count();
    assert!(
        with_placeholders >= 5,
        "{with_placeholders} KEPs with replaces: n/a"
    );
    for (page, bytes) in all
        .iter()
        .filter(|(p, _)| p.starts_with("keps/") && p.ends_with("index.html"))
    {
        let html = String::from_utf8_lossy(bytes);
        for href in links(&html) {
            let h = href.to_ascii_lowercase();
            assert!(
                !h.ends_with("/n/a") && !h.ends_with("/none") && !h.ends_with("/tbd"),
                "{page}: {href}"
            );
        }
    }
}

/// READMEs whose raw HTML is only bare phrasing tags, well nested, are
/// written as rendered instead of through the sanitizer: every such page of
/// the corpus has the tree the sanitizer would have given it.
#[test]
fn corpus_readmes_that_skip_the_sanitizer_keep_its_tree() {
    use kepsite::site::highlight::Highlighter;
    use kepsite::site::markdown::{Links, render_sanitized, render_titled};
    use kepsite::site::sanitize::as_parsed;
    let model = load_files(&Input::at(corpus())).model;
    let (keps, assets) = (BTreeMap::new(), BTreeSet::new());
    let links = Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/kubernetes/enhancements",
        branch: "master",
    };
    let (hl, titles) = (Highlighter::new(), BTreeMap::new());
    let mut kept = 0;
    for kep in &model.keps {
        let from = kep.readme_path.as_deref().unwrap_or(&kep.path);
        let fast = render_titled(kep.readme_text(), from, &links, &titles, &hl);
        let slow = render_sanitized(kep.readme_text(), from, &links, &titles, &hl);
        if fast.html != slow.html {
            kept += 1;
            assert_eq!(as_parsed(&fast.html), slow.html, "{from}");
        }
    }
    // 92 of the 167 READMEs with raw HTML, at the corpus's HEAD
    assert!(kept >= 80, "only {kept} READMEs skipped the sanitizer");
}
