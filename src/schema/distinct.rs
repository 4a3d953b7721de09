//! Lists without repeats, kept in linear time.
//!
//! [`Distinct`] is a list in the order its items were first inserted, with a hash index beside
//! it once it holds more than a handful of items, so that asking "seen before?" for every item
//! of a list of `n` costs `n`, not `n²`. [`DistinctValues`] answers the same question for JSON
//! values under serde_json's `==`, which ignores the order of an object's members (so its hash,
//! [`equality_hash`], does too). Derivation, lint and tool compilation use them wherever a
//! schema's size (properties, tools, enum values, notes) decides how long a list gets.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::Value;

/// Below this many items a linear search costs less than hashing.
const LINEAR: usize = 16;

/// Items in the order they were first inserted, each at most once.
#[derive(Debug, Clone)]
pub(crate) struct Distinct<T> {
    items: Vec<T>,
    /// Positions in `items` by hash; built once `items` outgrows [`LINEAR`].
    index: Option<HashMap<u64, Vec<usize>>>,
    /// Items compared with `==` so far, for the test that keeps insertion linear.
    #[cfg(test)]
    compared: usize,
}

impl<T> Default for Distinct<T> {
    fn default() -> Distinct<T> {
        Distinct {
            items: Vec::new(),
            index: None,
            #[cfg(test)]
            compared: 0,
        }
    }
}

impl<T: Hash + Eq> Distinct<T> {
    /// An empty list.
    pub fn new() -> Distinct<T> {
        Distinct::default()
    }

    /// Appends `item` unless an equal item is already in the list; true when it was appended.
    pub fn insert(&mut self, item: T) -> bool {
        if self.index.is_none() {
            if self.items.len() < LINEAR {
                #[cfg(test)]
                {
                    self.compared += self.items.len();
                }
                if self.items.contains(&item) {
                    return false;
                }
                self.items.push(item);
                return true;
            }
            let mut index: HashMap<u64, Vec<usize>> = HashMap::with_capacity(self.items.len() * 2);
            for (position, existing) in self.items.iter().enumerate() {
                index.entry(hash_of(existing)).or_default().push(position);
            }
            self.index = Some(index);
        }
        let bucket = self
            .index
            .as_mut()
            .expect("built above")
            .entry(hash_of(&item))
            .or_default();
        #[cfg(test)]
        {
            self.compared += bucket.len();
        }
        let items = &mut self.items;
        if bucket.iter().any(|&position| items[position] == item) {
            return false;
        }
        bucket.push(items.len());
        items.push(item);
        true
    }

    /// The items, in insertion order.
    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

fn hash_of(item: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    item.hash(&mut hasher);
    hasher.finish()
}

/// JSON values seen so far, compared with serde_json's `==`.
#[derive(Debug, Default)]
pub(crate) struct DistinctValues<'a> {
    buckets: HashMap<u64, Vec<&'a Value>>,
}

impl<'a> DistinctValues<'a> {
    /// No values yet.
    pub fn new() -> DistinctValues<'a> {
        DistinctValues::default()
    }

    /// Adds `value`; true when no equal value was there before.
    pub fn insert(&mut self, value: &'a Value) -> bool {
        let bucket = self.buckets.entry(equality_hash(value)).or_default();
        if bucket.contains(&value) {
            return false;
        }
        bucket.push(value);
        true
    }

    /// Whether a value equal to `value` was added.
    pub fn contains(&self, value: &Value) -> bool {
        self.buckets
            .get(&equality_hash(value))
            .is_some_and(|bucket| bucket.contains(&value))
    }
}

/// A hash of `value` that agrees with `==`: equal values hash alike. An object's members are
/// combined in an order-independent way, since `==` ignores their order (serde_json's map keeps
/// the written order here, but compares as a map); numbers hash as serde_json's `Number` does
/// (`0.0` and `-0.0` alike).
pub(crate) fn equality_hash(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    match value {
        Value::Null => 0u8.hash(&mut hasher),
        Value::Bool(flag) => (1u8, flag).hash(&mut hasher),
        Value::Number(number) => (2u8, number).hash(&mut hasher),
        Value::String(text) => (3u8, text).hash(&mut hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(&mut hasher);
            for item in items {
                equality_hash(item).hash(&mut hasher);
            }
        }
        Value::Object(members) => {
            let combined = members.iter().fold(0u64, |sum, (key, member)| {
                let mut one = DefaultHasher::new();
                (key, equality_hash(member)).hash(&mut one);
                sum.wrapping_add(one.finish())
            });
            (5u8, members.len(), combined).hash(&mut hasher);
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn distinct_keeps_first_occurrences_in_order_past_the_linear_size() {
        let mut list = Distinct::new();
        let inputs: Vec<u32> = (0..100).chain(0..100).chain(100..120).collect();
        let appended = inputs.iter().filter(|&&item| list.insert(item)).count();
        assert_eq!(appended, 120);
        assert!(!list.insert(7) && !list.insert(119));
        assert_eq!(list.into_vec(), (0..120).collect::<Vec<u32>>());
    }

    #[test]
    fn insertion_compares_only_within_a_hash_bucket() {
        // A return to a linear search would compare about n²/2 = 50 million times here.
        let mut list = Distinct::new();
        let count = 10_000;
        for round in 0..2 {
            for item in 0..count {
                assert_eq!(list.insert(format!("item {item}")), round == 0);
            }
        }
        assert!(
            list.compared <= LINEAR * LINEAR + 2 * count,
            "{} comparisons for {} insertions",
            list.compared,
            2 * count
        );
    }

    #[test]
    fn equal_values_hash_alike_whatever_the_member_order() {
        let a = json!({"x": 1, "y": [1, {"p": null, "q": true}]});
        let b: Value =
            serde_json::from_str(r#"{"y": [1, {"q": true, "p": null}], "x": 1}"#).unwrap();
        assert_eq!(a, b);
        assert_eq!(equality_hash(&a), equality_hash(&b));
        assert_eq!(equality_hash(&json!(0.0)), equality_hash(&json!(-0.0)));
        assert_ne!(equality_hash(&json!([1, 2])), equality_hash(&json!([2, 1])));
        let mut seen = DistinctValues::new();
        assert!(seen.insert(&a));
        assert!(!seen.insert(&b));
        assert!(seen.contains(&b) && !seen.contains(&json!(1)));
        // 1 and 1.0 are different values to serde_json.
        let (int, float) = (json!(1), json!(1.0));
        assert!(seen.insert(&int) && seen.insert(&float));
    }
}
