//! Writing a file whole or not at all, the one implementation: the bytes go
//! to a temporary sibling created exclusively (`O_EXCL | O_NOFOLLOW`, so a
//! file or symlink someone planted under that name is never written
//! through) and are renamed over the file, so a reader sees the old file or
//! the new one, never a part. (The site's output tree is staged and swapped
//! whole instead: [`crate::site::output`].)

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::path::Path;

/// Who may read the file written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The user alone (`0600`): cache files.
    Private,
    /// As the umask allows (`0666` before it): files a user asked for.
    Shared,
}

/// Create `path` for writing; fails if anything (a symlink included) is there.
fn create_exclusive(path: &Path, access: Access) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let mode = match access {
            Access::Private => 0o600,
            Access::Shared => 0o666,
        };
        o.mode(mode).custom_flags(libc::O_NOFOLLOW);
    }
    #[cfg(not(unix))]
    let _ = access;
    o.open(path)
}

/// Put `bytes` in `file` (whose directory must exist) through
/// `<name>.<pid>.<n>.tmp` beside it; on failure the temporary file is removed.
pub fn write(file: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    let Some(name) = file.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} has no file name", file.display()),
        ));
    };
    for n in 0..16 {
        let mut tmp_name = name.to_os_string();
        tmp_name.push(format!(".{}.{n}.tmp", std::process::id()));
        let tmp = file.with_file_name(tmp_name);
        let mut f = match create_exclusive(&tmp, access) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        return f
            .write_all(bytes)
            .and_then(|()| std::fs::rename(&tmp, file))
            .inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            });
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary file name",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.json");
        write(&file, b"old", Access::Shared).unwrap();
        write(&file, b"new", Access::Shared).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"]);
        assert!(write(Path::new("/"), b"x", Access::Shared).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn never_writes_through_a_planted_temporary_symlink() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let file = dir.path().join("f");
        let planted = dir.path().join(format!("f.{}.0.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write(&file, b"data", Access::Private).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&file).unwrap(), b"data");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
