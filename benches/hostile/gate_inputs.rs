//! Hostile feature-gate files (issue 49), written for `benches/hostile.rs`
//! and the tests of `tests/it/code_inputs.rs`: each is a list of (path from
//! the checkout's root, Go text) whose size grows with `n`.

/// The header every file starts with.
fn head(package: &str) -> String {
    format!(
        "package {package}\n\nimport (\n\t\"k8s.io/apimachinery/pkg/util/version\"\n\
         \tgeneric \"k8s.io/apiserver/pkg/features\"\n\t\"k8s.io/component-base/featuregate\"\n)\n\n"
    )
}

fn spec(minor: u32) -> String {
    format!(
        "{{{{Version: version.MustParse(\"1.{minor}\"), Default: false, PreRelease: featuregate.Alpha}}}}"
    )
}

/// `n` gates declared in a staging package and registered in
/// `pkg/features` by qualified keys (`generic.G0`): each key was resolved by
/// scanning every constant.
pub fn qualified_keys(n: usize) -> Vec<(String, String)> {
    let mut consts = head("features");
    consts.push_str("const (\n");
    let mut map = head("features");
    map.push_str(
        "var defaultVersionedKubernetesFeatureGates = \
         map[featuregate.Feature]featuregate.VersionedSpecs{\n",
    );
    for i in 0..n {
        consts.push_str(&format!("\tG{i} featuregate.Feature = \"G{i}\"\n"));
        map.push_str(&format!("\tgeneric.G{i}: {},\n", spec(30)));
    }
    consts.push_str(")\n");
    map.push_str("}\n");
    vec![
        ("pkg/features/kube_features.go".into(), map),
        (
            "staging/src/k8s.io/apiserver/pkg/features/kube_features.go".into(),
            consts,
        ),
    ]
}

/// `n` comment lines, then `n` constants on one line (`A = "A"; B = "B";
/// …`): each constant's doc comment was read again, walking back over all
/// `n` comments.
pub fn one_line(n: usize) -> Vec<(String, String)> {
    let mut text = head("features");
    text.push_str("const (\n");
    for _ in 0..n {
        text.push_str("\t// a comment line\n");
    }
    text.push('\t');
    for i in 0..n {
        text.push_str(&format!("G{i} featuregate.Feature = \"G{i}\"; "));
    }
    text.push_str("\n)\n");
    vec![("pkg/features/kube_features.go".into(), text)]
}

/// One gate whose `// kep:` line names `n` distinct numbers: each was
/// checked against every number before it.
pub fn kep_numbers(n: usize) -> Vec<(String, String)> {
    let mut text = head("features");
    text.push_str("const (\n\t// kep:");
    for i in 0..n {
        text.push_str(&format!(" {}", 1000 + i));
    }
    text.push_str("\n\tG featuregate.Feature = \"G\"\n)\n\n");
    text.push_str(&format!(
        "var gates = map[featuregate.Feature]featuregate.VersionedSpecs{{\n\tG: {},\n}}\n",
        spec(30)
    ));
    vec![("pkg/features/kube_features.go".into(), text)]
}

/// `n` gates whose `// kep:` lines all name KEP `kep`: each was added to
/// the KEP's list after a scan of the list. In files of 10,000 gates (a
/// file of 160,000 is over the size limit for a gate file).
pub fn same_kep(n: usize, kep: u32) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (f, start) in (0..n).step_by(10_000).enumerate() {
        let end = (start + 10_000).min(n);
        let mut text = head("features");
        text.push_str("const (\n");
        for i in start..end {
            text.push_str(&format!(
                "\t// kep: https://kep.k8s.io/{kep}\n\tG{i} featuregate.Feature = \"G{i}\"\n\n"
            ));
        }
        text.push_str(&format!(
            ")\n\nvar gates{f} = map[featuregate.Feature]featuregate.VersionedSpecs{{\n"
        ));
        for i in start..end {
            text.push_str(&format!("\tG{i}: {},\n", spec(30)));
        }
        text.push_str("}\n");
        files.push((format!("pkg/features/gates_{f}.go"), text));
    }
    files
}

/// A git repository at `dir` with one commit of `files`, committed at
/// `time` (unix seconds, never the clock), tagged with `tags`.
pub fn commit(dir: &std::path::Path, files: &[(String, String)], time: i64, tags: &[&str]) {
    let repo = git2::Repository::init(dir).expect("git init");
    let mut index = repo.index().expect("index");
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&full, text).expect("write");
        index.add_path(std::path::Path::new(path)).expect("add");
    }
    index.write().expect("index");
    let tree_id = index.write_tree().expect("tree");
    let tree = repo.find_tree(tree_id).expect("tree");
    let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(time, 0)).expect("sig");
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let id = repo
        .commit(Some("HEAD"), &sig, &sig, "snapshot", &tree, &parents)
        .expect("commit");
    let object = repo.find_object(id, None).expect("object");
    for tag in tags {
        repo.tag_lightweight(tag, &object, true).expect("tag");
    }
}
