//! The embedded sample repository (`content/`, compiled into the binary) →
//! [`RepoSnapshot`], so `kepsite` with no arguments works anywhere.

use include_dir::{Dir, DirEntry, include_dir};

use super::{MAX_FILE_BYTES, RepoFile, RepoSnapshot, Source, finish, is_input, is_wanted};

static CONTENT: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/content");

/// The pseudo root path that names the embedded sample in a [`Source`].
pub const EMBEDDED_ROOT: &str = "<embedded content>";

/// Load the embedded sample repository.
pub(crate) fn load_embedded() -> RepoSnapshot {
    let mut files = Vec::new();
    let mut assets = Vec::new();
    collect(&CONTENT, &mut files, &mut assets);
    finish(
        Source {
            root: EMBEDDED_ROOT.into(),
            commit: None,
            time: None,
        },
        files,
        assets,
        Vec::new(),
    )
}

fn collect(dir: &Dir<'static>, files: &mut Vec<RepoFile>, assets: &mut Vec<String>) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(d) => collect(d, files, assets),
            DirEntry::File(f) => {
                let Some(path) = f.path().to_str().map(|p| p.replace('\\', "/")) else {
                    continue;
                };
                if !is_wanted(&path) || f.contents().len() as u64 > MAX_FILE_BYTES {
                    continue;
                }
                if is_input(&path) {
                    files.push(RepoFile {
                        path,
                        bytes: f.contents().to_vec(),
                    });
                } else {
                    assets.push(path);
                }
            }
        }
    }
}

/// The bytes of an embedded file.
pub(super) fn read(path: &str) -> Option<Vec<u8>> {
    CONTENT.get_file(path).map(|f| f.contents().to_vec())
}
