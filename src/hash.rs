//! Content hashes, one family: xxh3 (stable across Rust releases and
//! platforms, unlike `DefaultHasher`), for cache keys, manifests and
//! content-hashed file names. In-memory hash tables choose their own hasher.

use xxhash_rust::xxh3::{Xxh3, xxh3_64, xxh3_128};

/// The 64-bit hash of `bytes`.
pub fn hash64(bytes: &[u8]) -> u64 {
    xxh3_64(bytes)
}

/// The 128-bit hash of `bytes`, where collisions must never happen in
/// practice (file digests, cache keys of whole inputs).
pub fn hash128(bytes: &[u8]) -> u128 {
    xxh3_128(bytes)
}

/// The 64-bit hash of several fields, each length-prefixed so no two
/// inputs run together (`("ab", "c")` ≠ `("a", "bc")`).
pub fn hash64_fields(fields: &[&[u8]]) -> u64 {
    let mut h = Xxh3::new();
    for f in fields {
        h.update(&(f.len() as u64).to_le_bytes());
        h.update(f);
    }
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_stable_and_fields_do_not_run_together() {
        // xxh3's published value for the empty input: a hash that changed
        // would orphan every cache and rename every hashed asset
        assert_eq!(hash64(b""), 0x2d06_8005_38d3_94c2);
        assert_ne!(hash64(b"a"), hash64(b"b"));
        assert_ne!(hash128(b"a"), hash128(b"b"));
        assert_ne!(hash64_fields(&[b"ab", b"c"]), hash64_fields(&[b"a", b"bc"]));
        assert_eq!(hash64_fields(&[b"x"]), hash64_fields(&[b"x"]));
    }
}
