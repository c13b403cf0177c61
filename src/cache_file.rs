//! The cache directory (`--cache-dir`) and its files.
//!
//! kepsite trusts what it reads back from its cache (the history walk,
//! `history-v4.json`), so the directory must be one nobody
//! else can write: by default the user's own cache directory
//! (`$XDG_CACHE_HOME/kepsite`, else `~/.cache/kepsite`; the platform's
//! equivalent elsewhere), never the current directory. It is created `0700`
//! and refused when someone else owns it or group or others may write it.
//! Files are written whole or not at all, through a temporary file created
//! exclusively (never through a symlink someone planted).

use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

/// The default cache directory: `kepsite` in the user's cache directory.
pub fn default_dir() -> Option<PathBuf> {
    dirs::cache_dir()
        .filter(|d| d.is_absolute())
        .map(|d| d.join("kepsite"))
}

/// The cache directory to use: `given` (`--cache-dir`) or [`default_dir`],
/// created `0700` when missing, and checked: refused when it is not a
/// directory, belongs to another user, or group or others may write to it.
pub fn dir(given: Option<&Path>) -> Result<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => default_dir().ok_or_else(|| {
            anyhow!(
                "no user cache directory (neither XDG_CACHE_HOME nor HOME is set); pass --cache-dir"
            )
        })?,
    };
    if std::fs::symlink_metadata(&dir).is_err() {
        create_dir(&dir).with_context(|| format!("creating cache directory {}", dir.display()))?;
    }
    check_owned(&dir)?;
    Ok(dir)
}

/// Refuse a cache directory someone else could write.
#[cfg(unix)]
fn check_owned(dir: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let m = std::fs::metadata(dir)
        .with_context(|| format!("reading cache directory {}", dir.display()))?;
    if !m.is_dir() {
        bail!("cache directory {} is not a directory", dir.display());
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if m.uid() != me {
        bail!(
            "cache directory {} belongs to user {}, not to you (user {me}): refusing to use it, \
             since whoever owns it controls what kepsite publishes; pass --cache-dir",
            dir.display(),
            m.uid()
        );
    }
    if m.mode() & 0o022 != 0 {
        bail!(
            "cache directory {} is writable by group or others (mode {:o}): refusing to use it, \
             since whoever can write it controls what kepsite publishes; `chmod go-w` it or \
             pass --cache-dir",
            dir.display(),
            m.mode() & 0o7777
        );
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_owned(dir: &Path) -> Result<()> {
    if !std::fs::metadata(dir)?.is_dir() {
        bail!("cache directory {} is not a directory", dir.display());
    }
    Ok(())
}

/// Create `dir` and its missing parents, readable by the user alone.
fn create_dir(dir: &Path) -> io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// Put `bytes` in `file`, readable by the user alone, creating its
/// directory: whole or not at all ([`crate::atomic_write`]).
pub(crate) fn write(file: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = file.parent() {
        create_dir(dir)?;
    }
    crate::atomic_write::write(file, bytes, crate::atomic_write::Access::Private)
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
    }

    /// Issue 17, finding 6: a planted `<name>.<pid>.tmp` symlink made the
    /// build overwrite the file it points to.
    #[cfg(unix)]
    #[test]
    fn a_planted_temporary_symlink_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let cache = dir.path().join("cache");
        std::fs::create_dir(&cache).unwrap();
        let file = cache.join("cache.bin");
        for tmp in [
            format!("cache.bin.{}.tmp", std::process::id()),
            format!("cache.bin.{}.0.tmp", std::process::id()),
        ] {
            std::os::unix::fs::symlink(&victim, cache.join(tmp)).unwrap();
        }
        write(&file, b"cached").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&file).unwrap(), b"cached");
        assert!(!std::fs::symlink_metadata(&file).unwrap().is_symlink());
    }

    /// Issue 17, finding 6: the cache directory is the user's own.
    #[cfg(unix)]
    #[test]
    fn the_cache_directory_is_created_private_and_checked() {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let default = default_dir().expect("a user cache directory");
        assert!(
            default.is_absolute() && default.ends_with("kepsite"),
            "{default:?}"
        );
        assert_ne!(default, std::env::current_dir().unwrap().join("kepsite"));

        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("a/b/kepsite");
        assert_eq!(dir(Some(&fresh)).unwrap(), fresh);
        let mode = std::fs::metadata(&fresh).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);

        let shared = tmp.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = format!("{:#}", dir(Some(&shared)).unwrap_err());
        assert!(err.contains("writable by group or others"), "{err}");

        // someone else's directory: `/` when not root, else one given away
        let foreign = if unsafe { libc::geteuid() } == 0 {
            let d = tmp.path().join("foreign");
            std::fs::create_dir(&d).unwrap();
            std::os::unix::fs::chown(&d, Some(65534), Some(65534)).unwrap();
            d
        } else {
            PathBuf::from("/")
        };
        let err = format!("{:#}", dir(Some(&foreign)).unwrap_err());
        assert!(err.contains("not to you"), "{err}");

        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(dir(Some(&file)).is_err());
    }
}
