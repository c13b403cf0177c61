//! What the files of the last builds held, by inode, so that a rebuild can
//! tell whether a file it is about to write is already there from the file's
//! metadata and a hash of the new bytes, without reading the old ones back.
//!
//! An entry says: the file with this device and inode number, last changed
//! at this ctime and this long, held the bytes with this XXH3-128 hash when
//! kepsite wrote or checked it. Every write to a file moves its ctime, which
//! no system call can set back, so an entry that matches the file's metadata
//! still describes its bytes. An entry that does not match is ignored and the
//! file is compared byte by byte. The file lives in the cache directory, one
//! per output directory, and keeps the entries of the last two builds: the
//! staging tree a build reuses is the site from the build before last.
//!
//! Timestamps have a granularity (a few ms on ext4, a second or two
//! elsewhere): a file changed within the same tick as the ctime recorded for
//! it keeps that ctime. As git does with its index, an entry whose ctime is
//! not at least a window older than the manifest's own save time is "racy"
//! and vouches for nothing; the file is read instead. The window is
//! [`FINE_WINDOW_NS`] on the filesystems whose timestamps come from the
//! kernel's clock tick ([`racy_window`]), else [`RACY_WINDOW_NS`]. A file the
//! build keeps keeps its old ctime, so in a rebuild of an unchanged site
//! every entry is old enough.
//!
//! The manifest also remembers which output each page's inputs gave
//! ([`Manifest::rendered`]): the hash of everything a page's rendering
//! depends on (its template set, its context, the kepsite binary), with the
//! hash and length of the bytes it rendered to. A rebuild that finds the same
//! inputs, and a file the manifest vouches holds those bytes, keeps the file
//! without rendering the page again ([`super::output::Stage::keep_rendered`]).

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const MAGIC: &[u8] = b"kepsite site manifest v3\n";

/// How much older than the manifest's save time an entry's ctime must be
/// for the entry to count: two seconds, the coarsest timestamps in use (FAT).
const RACY_WINDOW_NS: i128 = 2_000_000_000;

/// The window on filesystems that keep nanosecond timestamps set from the
/// kernel's clock, which ticks at least every 10 ms (HZ ≥ 100): two ticks.
const FINE_WINDOW_NS: i128 = 20_000_000;

/// The racy window for files on the filesystem holding `dir`:
/// [`FINE_WINDOW_NS`] on ext2/3/4, XFS, Btrfs, tmpfs, overlayfs, F2FS, ZFS
/// and bcachefs (Linux), [`RACY_WINDOW_NS`] on any other or unknown one
/// (FAT, exFAT, network filesystems, other systems).
pub(crate) fn racy_window(dir: &Path) -> i128 {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return RACY_WINDOW_NS;
        };
        // SAFETY: `c` is a NUL-terminated path and `s` a writable statfs.
        let mut s: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statfs(c.as_ptr(), &mut s) } == 0 {
            return window_for_type(s.f_type as i64);
        }
    }
    let _ = dir;
    RACY_WINDOW_NS
}

/// The window for a filesystem by its `statfs` type (Linux magic numbers).
fn window_for_type(f_type: i64) -> i128 {
    const FINE: [i64; 8] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
        0xF2F5_2010, // F2FS
        0x2FC1_2FC1, // ZFS
        0xCA45_1A4E, // bcachefs
    ];
    if FINE.contains(&f_type) {
        FINE_WINDOW_NS
    } else {
        RACY_WINDOW_NS
    }
}

/// Which file, and its state when its bytes were hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    ctime: i64,
    ctime_nsec: i64,
}

#[cfg(unix)]
fn stamp(m: &Metadata) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    m.file_type().is_file().then(|| Stamp {
        dev: m.dev(),
        ino: m.ino(),
        size: m.len(),
        ctime: m.ctime(),
        ctime_nsec: m.ctime_nsec(),
    })
}

/// Elsewhere there is no ctime to trust: every file is read back.
#[cfg(not(unix))]
fn stamp(_: &Metadata) -> Option<Stamp> {
    None
}

/// Entries by device and inode number.
type Entries = HashMap<(u64, u64), Entry>;

/// What a page's inputs rendered to: (hash, length, generation), by the
/// hash of the inputs.
type Renderings = HashMap<u128, Rendering>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rendering {
    hash: u128,
    len: u64,
    generation: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    stamp: Stamp,
    hash: u128,
    generation: u64,
}

impl Stamp {
    fn ctime_ns(&self) -> i128 {
        i128::from(self.ctime) * 1_000_000_000 + i128::from(self.ctime_nsec)
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The hash a manifest keeps of a file's bytes.
pub(crate) fn digest(bytes: &[u8]) -> u128 {
    crate::hash::hash128(bytes)
}

/// The manifest of an output directory: the entries of earlier builds, and
/// those this build records.
#[derive(Debug)]
pub(crate) struct Manifest {
    file: PathBuf,
    generation: u64,
    earlier: Entries,
    /// What pages' inputs rendered to in earlier builds.
    earlier_renderings: Renderings,
    /// Entries with a ctime from this time on are racy (ns since the epoch).
    racy_from: i128,
    recorded: Mutex<Vec<Entry>>,
    recorded_renderings: Mutex<Vec<(u128, Rendering)>>,
    /// Files the earlier entries vouched for (for tests and timings).
    vouched: AtomicUsize,
}

impl Manifest {
    /// The manifest in `file` of output files on the filesystem holding
    /// `dir`; a missing or unreadable one is empty.
    pub(crate) fn load(file: PathBuf, dir: &Path) -> Manifest {
        // the crate's unit tests build trees within milliseconds of each
        // other; the racy rule has its own test
        let window = if cfg!(test) { 0 } else { racy_window(dir) };
        Self::load_with_window(file, window)
    }

    /// [`Manifest::load`] with another racy window (tests use 0).
    fn load_with_window(file: PathBuf, window: i128) -> Manifest {
        let (generation, saved_at, earlier, earlier_renderings) = std::fs::read(&file)
            .ok()
            .and_then(|b| parse(&b))
            .unwrap_or_default();
        Manifest {
            file,
            generation: generation + 1,
            earlier,
            earlier_renderings,
            racy_from: saved_at - window,
            recorded: Mutex::new(Vec::new()),
            recorded_renderings: Mutex::new(Vec::new()),
            vouched: AtomicUsize::new(0),
        }
    }

    /// Whether the file with metadata `m` holds the bytes hashing to `hash`:
    /// `None` when no entry describes the file as it is now, or the entry is
    /// racy.
    pub(crate) fn holds(&self, m: &Metadata, hash: u128) -> Option<bool> {
        let s = stamp(m)?;
        let e = self.earlier.get(&(s.dev, s.ino))?;
        (e.stamp == s && s.ctime_ns() < self.racy_from).then(|| {
            let same = e.hash == hash;
            if same {
                self.vouched.fetch_add(1, Ordering::Relaxed);
            }
            same
        })
    }

    /// Note that the file with metadata `m` holds bytes hashing to `hash`.
    pub(crate) fn record(&self, m: &Metadata, hash: u128) {
        if let Some(stamp) = stamp(m) {
            self.recorded
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Entry {
                    stamp,
                    hash,
                    generation: self.generation,
                });
        }
    }

    /// The hash and length of what the page with inputs `key` rendered to in
    /// an earlier build, if one rendered it.
    pub(crate) fn rendered(&self, key: u128) -> Option<(u128, u64)> {
        self.earlier_renderings.get(&key).map(|r| (r.hash, r.len))
    }

    /// Note that the page with inputs `key` rendered to `len` bytes hashing
    /// to `hash`.
    pub(crate) fn record_rendering(&self, key: u128, hash: u128, len: u64) {
        self.recorded_renderings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((
                key,
                Rendering {
                    hash,
                    len,
                    generation: self.generation,
                },
            ));
    }

    /// How many files earlier entries vouched for in this build.
    pub(crate) fn vouched(&self) -> usize {
        self.vouched.load(Ordering::Relaxed)
    }

    /// Write the entries of this build and of the one before it.
    pub(crate) fn save(self) -> std::io::Result<()> {
        let mut entries = self.earlier;
        entries.retain(|_, e| e.generation + 1 >= self.generation);
        for e in self
            .recorded
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            entries.insert((e.stamp.dev, e.stamp.ino), e);
        }
        let mut renderings = self.earlier_renderings;
        renderings.retain(|_, r| r.generation + 1 >= self.generation);
        renderings.extend(
            self.recorded_renderings
                .into_inner()
                .unwrap_or_else(|e| e.into_inner()),
        );
        let mut buf =
            Vec::with_capacity(MAGIC.len() + 32 + entries.len() * 64 + renderings.len() * 48);
        buf.extend_from_slice(MAGIC);
        buf.extend_from_slice(&self.generation.to_le_bytes());
        // after every entry's stat, so that racy ones show as such
        buf.extend_from_slice(&now_ns().to_le_bytes());
        buf.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for e in entries.values() {
            let s = e.stamp;
            for n in [s.dev, s.ino, s.size, s.ctime as u64, s.ctime_nsec as u64] {
                buf.extend_from_slice(&n.to_le_bytes());
            }
            buf.extend_from_slice(&e.hash.to_le_bytes());
            buf.extend_from_slice(&e.generation.to_le_bytes());
        }
        for (key, r) in &renderings {
            buf.extend_from_slice(&key.to_le_bytes());
            buf.extend_from_slice(&r.hash.to_le_bytes());
            buf.extend_from_slice(&r.len.to_le_bytes());
            buf.extend_from_slice(&r.generation.to_le_bytes());
        }
        crate::cache_file::write(&self.file, &buf)?;
        prune_siblings(&self.file, FORGOTTEN_AFTER);
        Ok(())
    }
}

/// How long the manifest of an output directory no build has written is kept.
const FORGOTTEN_AFTER: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 60 * 60);

/// Remove the manifests beside `file` (`site-*.manifest`, one per output
/// directory) that no build has saved for `age`: their sites are gone or
/// no longer built.
fn prune_siblings(file: &Path, age: std::time::Duration) {
    let Some(dir) = file.parent() else {
        return;
    };
    let Ok(entries) = crate::cache_file::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        let ours = name
            .to_str()
            .is_some_and(|n| n.starts_with("site-") && n.ends_with(".manifest"));
        let old = e
            .metadata()
            .ok()
            .and_then(|m| crate::cache_file::age(&m))
            .is_some_and(|a| a > age);
        if ours && old && path != file {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn parse(bytes: &[u8]) -> Option<(u64, i128, Entries, Renderings)> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (generation, rest) = rest.split_first_chunk::<8>()?;
    let (saved_at, rest) = rest.split_first_chunk::<16>()?;
    let (count, mut rest) = rest.split_first_chunk::<8>()?;
    let count = usize::try_from(u64::from_le_bytes(*count)).ok()?;
    let mut entries = HashMap::with_capacity(count.min(rest.len() / 64));
    for _ in 0..count {
        let (record, r) = rest.split_first_chunk::<64>()?;
        let word =
            |i: usize| u64::from_le_bytes(record[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        let stamp = Stamp {
            dev: word(0),
            ino: word(1),
            size: word(2),
            ctime: word(3) as i64,
            ctime_nsec: word(4) as i64,
        };
        let hash = u128::from_le_bytes(record[40..56].try_into().ok()?);
        entries.insert(
            (stamp.dev, stamp.ino),
            Entry {
                stamp,
                hash,
                generation: word(7),
            },
        );
        rest = r;
    }
    let mut renderings = HashMap::with_capacity(rest.len() / 48);
    while !rest.is_empty() {
        let (record, r) = rest.split_first_chunk::<48>()?;
        let (key, record) = record.split_first_chunk::<16>()?;
        let (hash, record) = record.split_first_chunk::<16>()?;
        let (len, generation) = record.split_first_chunk::<8>()?;
        renderings.insert(
            u128::from_le_bytes(*key),
            Rendering {
                hash: u128::from_le_bytes(*hash),
                len: u64::from_le_bytes(*len),
                generation: u64::from_le_bytes(generation.try_into().ok()?),
            },
        );
        rest = r;
    }
    Some((
        u64::from_le_bytes(*generation),
        i128::from_le_bytes(*saved_at),
        entries,
        renderings,
    ))
}

#[cfg(all(test, unix))]
mod tests;
