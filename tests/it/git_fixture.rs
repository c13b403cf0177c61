//! Tiny repositories made commit by commit with git2, at fixed times.

use std::path::Path;

use git2::{Repository, Signature, Time};

/// Commits the given files (path → content, `None` deletes) on top of HEAD.
pub fn commit(repo: &Repository, time: i64, msg: &str, files: &[(&str, Option<&str>)]) -> String {
    let root = repo.workdir().expect("workdir").to_path_buf();
    let mut index = repo.index().expect("index");
    for (path, content) in files {
        let full = root.join(path);
        match content {
            Some(c) => {
                std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
                std::fs::write(&full, c).expect("write");
                index.add_path(Path::new(path)).expect("add");
            }
            None => {
                std::fs::remove_file(&full).expect("rm");
                index.remove_path(Path::new(path)).expect("remove");
            }
        }
    }
    index.write().expect("index write");
    let tree = repo
        .find_tree(index.write_tree().expect("write tree"))
        .expect("tree");
    let sig = Signature::new("T", "t@example.com", &Time::new(time, 0)).expect("sig");
    let parents: Vec<_> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parents: Vec<_> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &parents)
        .expect("commit")
        .to_string()
}

pub fn kep_yaml(number: &str, status: &str, stage: &str, milestone: &str) -> String {
    format!(
        "title: Foo\nkep-number: {number}\nauthors:\n  - \"@a\"\nstatus: {status}\n\
         stage: {stage} # graduating\nlatest-milestone: \"{milestone}\"\nmilestone:\n  alpha: \"v1.20\"\n"
    )
}

pub const T0: i64 = 1_600_000_000; // 2020-09-13

/// Commits every file of the work tree (added or changed) on top of HEAD.
pub fn commit_all(repo: &Repository, time: i64, msg: &str) -> String {
    let mut index = repo.index().expect("index");
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .expect("add all");
    index.write().expect("index write");
    commit(repo, time, msg, &[])
}
