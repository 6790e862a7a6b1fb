//! Hash sets and maps of the macro's own names (locals, arrays, memoised expressions), with a hasher that
//! costs little where the macro runs unoptimised, as a user's `cargo build` builds it (the dev profile):
//! there the standard `SipHash` spent more than the rest of making a name.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a, 64 bits: one `xor` and one multiplication a byte. The keys are short names made by the macro or
/// written by the user; nothing here needs a defence against chosen collisions.
#[derive(Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut hash = self.0;
        for &byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashSet` hashed by [`Fnv`].
pub(crate) type FastSet<T> = HashSet<T, BuildHasherDefault<Fnv>>;

/// A `HashMap` hashed by [`Fnv`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    #[test]
    fn fnv_is_the_published_function() {
        // FNV-1a 64 of "a" (the published test vector); `str` hashes its bytes and then 0xff.
        let mut fnv = Fnv::default();
        fnv.write(b"a");
        assert_eq!(fnv.finish(), 0xaf63_dc4c_8601_ec8c);
        let mut set = FastSet::default();
        assert!(set.insert("x".to_string()));
        assert!(!set.insert("x".to_string()));
        let (mut a, mut b) = (Fnv::default(), Fnv::default());
        "ab".hash(&mut a);
        "ba".hash(&mut b);
        assert_ne!(a.finish(), b.finish());
    }
}
