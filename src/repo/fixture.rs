//! Git repositories made for the unit tests of the layers above the
//! loader that read a revision (a freeze deadline's model): they may not
//! name git themselves (git is read in this layer alone).

/// A git repository in a temporary directory (deleted with it): a commit
/// for each of `commits`, each writing its files `(path, text)` over the
/// work tree, at fixed times a minute apart; HEAD is the last, and the
/// work tree is as it left it.
pub(crate) fn git_repository(commits: &[&[(&str, &str)]]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    for (n, files) in commits.iter().enumerate() {
        for (path, text) in *files {
            let disk = dir.path().join(path);
            std::fs::create_dir_all(disk.parent().unwrap()).unwrap();
            std::fs::write(disk, text).unwrap();
        }
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let time = git2::Time::new(1_700_000_000 + 60 * n as i64, 0);
        let sig = git2::Signature::new("t", "t@example.com", &time).unwrap();
        let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, "test", &tree, &parents)
            .unwrap();
    }
    dir
}
