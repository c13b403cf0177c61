//! Files in the cache directory (`--cache-dir`): written whole or not at all,
//! and aged by their modification time.

use std::path::Path;
use std::time::Duration;

/// Put `bytes` in `file`, creating its directory: written beside it as
/// `<name>.<pid>.tmp` and renamed over it, so a reader sees the old file or
/// the new one, never a part. On failure the temporary file is removed.
pub(crate) fn write(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = file.with_file_name(name);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, file))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// How long ago the file with metadata `m` was last modified (`None` when
/// unknown, or in the future).
pub(crate) fn age(m: &std::fs::Metadata) -> Option<Duration> {
    m.modified().ok()?.elapsed().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_leaves_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("deep/er/cache.bin");
        write(&file, b"one").unwrap();
        write(&file, b"two").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["cache.bin"]);
        // a directory where the file belongs: an error, and no leftover
        let blocked = dir.path().join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write(&blocked, b"x").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        let a = age(&std::fs::metadata(&file).unwrap()).unwrap();
        assert!(a < Duration::from_secs(60), "{a:?}");
    }
}
