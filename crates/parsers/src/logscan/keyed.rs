//! Values by byte-string key (API names, kernel names, command kinds) for the hot loop of `log`.
//!
//! A runtime log repeats a few keys over and over (a GEMM loop launches the same two kernels
//! millions of times), so before hashing a key the map compares it with the keys it handed out
//! last: a hit costs one length check and one byte compare, where hashing a 400-byte Tensile
//! kernel name and probing costs several times that. Entries live in a `Vec` in insertion order;
//! the hash map only indexes them.

use rustc_hash::FxHashMap;

/// How many recently used keys are compared before hashing.
const RECENT: usize = 4;

#[derive(Debug, Clone)]
pub struct Keyed<V> {
    index: FxHashMap<Box<[u8]>, u32>,
    entries: Vec<(Box<[u8]>, V)>,
    /// Indexes into `entries` of the last keys looked up (`u32::MAX`: empty slot).
    recent: [u32; RECENT],
    /// The slot of `recent` a new key replaces (round robin).
    next: usize,
}

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Keyed {
            index: FxHashMap::default(),
            entries: Vec::new(),
            recent: [u32::MAX; RECENT],
            next: 0,
        }
    }
}

impl<V> Keyed<V> {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The index of `key`, from the recent keys or the hash map (remembered as recent).
    #[inline]
    fn find(&mut self, key: &[u8]) -> Option<usize> {
        for &r in &self.recent {
            if let Some((k, _)) = self.entries.get(r as usize) {
                if k.len() == key.len() && **k == *key {
                    return Some(r as usize);
                }
            }
        }
        let i = *self.index.get(key)?;
        self.remember(i);
        Some(i as usize)
    }

    fn remember(&mut self, i: u32) {
        self.recent[self.next] = i;
        self.next = (self.next + 1) % RECENT;
    }

    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut V> {
        let i = self.find(key)?;
        Some(&mut self.entries[i].1)
    }

    /// The value of `key`, made by `new` when the key is new and the map holds fewer than `cap`
    /// keys; `None` when it is new and the map is full.
    #[inline]
    pub fn get_or_insert(
        &mut self,
        key: &[u8],
        cap: usize,
        new: impl FnOnce() -> V,
    ) -> Option<&mut V> {
        let i = match self.find(key) {
            Some(i) => i,
            None if self.entries.len() >= cap => return None,
            None => {
                let i = self.entries.len();
                let k: Box<[u8]> = key.into();
                self.index.insert(k.clone(), i as u32);
                self.entries.push((k, new()));
                self.remember(i as u32);
                i
            }
        };
        Some(&mut self.entries[i].1)
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &V)> {
        self.entries.iter().map(|(k, v)| (&k[..], v))
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Empties the map, giving its entries in insertion order.
    pub fn take(&mut self) -> Vec<(Box<[u8]>, V)> {
        self.index.clear();
        self.recent = [u32::MAX; RECENT];
        self.next = 0;
        std::mem::take(&mut self.entries)
    }
}

/// Equal when both hold the same keys with equal values, whatever the order they came in.
impl<V: PartialEq> PartialEq for Keyed<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.iter().all(|(k, v)| {
                other
                    .index
                    .get(k)
                    .is_some_and(|&i| other.entries[i as usize].1 == *v)
            })
    }
}

impl<V> IntoIterator for Keyed<V> {
    type Item = (Box<[u8]>, V);
    type IntoIter = std::vec::IntoIter<(Box<[u8]>, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_and_hashed_lookups_agree_and_the_cap_holds() {
        let mut m: Keyed<u64> = Keyed::default();
        // More keys than the recent slots, revisited in an order that misses them.
        let keys: Vec<Vec<u8>> = (0..10)
            .map(|i| format!("kernel_{i}").into_bytes())
            .collect();
        for round in 0..3 {
            for k in keys.iter().rev().skip(round) {
                if let Some(v) = m.get_or_insert(k, 8, || 0) {
                    *v += 1;
                }
            }
        }
        assert_eq!(m.len(), 8, "the cap stops new keys");
        // Keys 9..=2 were inserted first (reverse order); 1 and 0 never fit.
        assert_eq!(m.get_mut(b"kernel_1"), None);
        assert_eq!(m.get_mut(b"kernel_9").copied(), Some(1));
        assert_eq!(m.get_mut(b"kernel_7").copied(), Some(3));
        assert_eq!(m.get_mut(b"kernel_2").copied(), Some(3));
        // A key that is a prefix of a recent one is not mistaken for it.
        assert_eq!(m.get_mut(b"kernel_").copied(), None);
        let order: Vec<&[u8]> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(order.first().copied(), Some(&b"kernel_9"[..]));
        let mut same: Keyed<u64> = Keyed::default();
        for (k, v) in m.iter().collect::<Vec<_>>().into_iter().rev() {
            same.get_or_insert(k, 8, || *v);
        }
        assert!(same == m, "equality ignores the order of insertion");
        if let Some(v) = same.get_mut(b"kernel_9") {
            *v += 1;
        }
        assert!(same != m, "and compares the values");
        let all = m.take();
        assert_eq!(all.len(), 8);
        assert!(m.is_empty() && m.get_mut(b"kernel_9").is_none());
    }
}
