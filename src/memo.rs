//! A process-wide memo of expensive work keyed by content (compiled validators, derived
//! grammars, compiled tool sets): looked up by a hash, confirmed by comparing the key itself,
//! filled outside the lock, and started over when it holds [`CAPACITY`] entries, which only
//! costs a recomputation. Depends on nothing else in the crate.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// How many entries a memo keeps before it starts over.
pub(crate) const CAPACITY: usize = 256;

/// The entries by the caller's hash; a bucket holds the keys that share one.
type Buckets<K, V> = HashMap<u64, Vec<(K, Arc<V>)>>;

/// Values of type `V` by keys of type `K`, bucketed by a hash the caller computes (so a key
/// that is costly to build, such as a schema's copy, is built only when a value is stored).
pub(crate) struct Memo<K, V> {
    buckets: OnceLock<Mutex<Buckets<K, V>>>,
}

impl<K, V> Memo<K, V> {
    /// An empty memo, for a `static`.
    pub(crate) const fn new() -> Memo<K, V> {
        Memo {
            buckets: OnceLock::new(),
        }
    }

    /// The value stored under a key that `is_key` accepts in bucket `hash`, or else the one
    /// `make` builds (with the key to store it under), stored for next time. `make` runs
    /// outside the lock: it can take a while, and other threads need the memo meanwhile.
    pub(crate) fn get_or_try_insert<E>(
        &self,
        hash: u64,
        is_key: impl Fn(&K) -> bool,
        make: impl FnOnce() -> Result<(K, V), E>,
    ) -> Result<Arc<V>, E> {
        if let Some((_, found)) = self
            .lock()
            .get(&hash)
            .and_then(|bucket| bucket.iter().find(|(key, _)| is_key(key)))
        {
            return Ok(Arc::clone(found));
        }
        let (key, value) = make()?;
        let value = Arc::new(value);
        let mut buckets = self.lock();
        if buckets.len() >= CAPACITY {
            buckets.clear();
        }
        buckets
            .entry(hash)
            .or_default()
            .push((key, Arc::clone(&value)));
        Ok(value)
    }

    fn lock(&self) -> MutexGuard<'_, Buckets<K, V>> {
        // A panic while holding the lock leaves a map that is still consistent.
        self.buckets
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_value_is_made_once_per_key_even_when_hashes_collide() {
        let memo: Memo<&str, String> = Memo::new();
        let made = Cell::new(0);
        let make = |key: &'static str| {
            made.set(made.get() + 1);
            Ok::<_, ()>((key, key.to_uppercase()))
        };
        let a = memo
            .get_or_try_insert(1, |key| *key == "a", || make("a"))
            .unwrap();
        let b = memo
            .get_or_try_insert(1, |key| *key == "b", || make("b"))
            .unwrap();
        let again = memo
            .get_or_try_insert(1, |key| *key == "a", || make("a"))
            .unwrap();
        assert_eq!((a.as_str(), b.as_str()), ("A", "B"));
        assert!(Arc::ptr_eq(&a, &again));
        assert_eq!(made.get(), 2);
        // An error is not stored.
        let failed =
            memo.get_or_try_insert(2, |key| *key == "c", || Err::<(&str, String), _>("no"));
        assert_eq!(failed.unwrap_err(), "no");
        assert!(
            memo.get_or_try_insert(2, |key| *key == "c", || make("c"))
                .is_ok()
        );
    }

    #[test]
    fn a_full_memo_starts_over() {
        let memo: Memo<u64, u64> = Memo::new();
        for hash in 0..CAPACITY as u64 {
            memo.get_or_try_insert(hash, |key| *key == hash, || Ok::<_, ()>((hash, hash)))
                .unwrap();
        }
        assert_eq!(memo.lock().len(), CAPACITY);
        memo.get_or_try_insert(u64::MAX, |_| false, || Ok::<_, ()>((0, 0)))
            .unwrap();
        assert_eq!(memo.lock().len(), 1);
    }
}
