//! Content hashes, one family: xxh3 (stable across Rust releases and
//! platforms, unlike `DefaultHasher`), for content-hashed file names and
//! `ETag`s. In-memory hash tables choose their own hasher.

use xxhash_rust::xxh3::xxh3_64;

/// The 64-bit hash of `bytes`.
pub fn hash64(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable() {
        // xxh3's published value for the empty input: a hash that changed
        // would orphan every cache and rename every hashed asset
        assert_eq!(hash64(b""), 0x2d06_8005_38d3_94c2);
        assert_ne!(hash64(b"a"), hash64(b"b"));
    }
}
