//! Walking every page of a list that may be written to meanwhile. Pages are cut by position, so
//! a record created at the list's head while it is walked moves the rest one place on (the last
//! one of a page is read again on the next), and one archived before the walk's place moves them
//! back (one is never read). A walk keeps each record once, by `_id`, and tells whether the list
//! held still: its total the same on every page and as many records read. One that did not is
//! walked again, up to [`WALKS`] times, until a walk holds still; when none does, the records of
//! all the walks are kept, so a record that was there throughout is missed only if every walk
//! missed it.

use serde_json::Value;
use std::collections::HashSet;

/// The most walks over one list.
pub const WALKS: usize = 3;

/// The records of one walk, in order, each once.
#[derive(Debug, Default)]
pub struct Walk {
    records: Vec<(String, Value)>,
    seen: HashSet<String>,
    /// The total the first page said.
    total: Option<i64>,
    /// Whether the list was seen to change: a total unlike the first page's, a record read twice.
    changed: bool,
    /// Whether the list held still while it was walked (known once the walk has ended).
    pub steady: bool,
}

/// A record's identity: its `_id`, or (for a list of records without one) all of it.
fn key(record: &Value) -> String {
    match record.get("_id").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => record.to_string(),
    }
}

impl Walk {
    /// How many records the walk read.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Adds a page whose envelope said `total`: whether there are more pages to read.
    pub fn add(&mut self, page: Vec<Value>, total: i64) -> bool {
        let first_total = *self.total.get_or_insert(total);
        let mut repeated = false;
        let empty = page.is_empty();
        for record in page {
            let key = key(&record);
            if self.seen.insert(key.clone()) {
                self.records.push((key, record));
            } else {
                repeated = true;
            }
        }
        // A record read twice: the list moved on under the pages. The walk goes on to its end
        // (to an empty page when records were created meanwhile), and another follows.
        self.changed |= repeated || total != first_total;
        let read = self.records.len() as i64;
        self.steady = !self.changed && read == total;
        !empty && read < total
    }
}

/// The records of `walks` (the last one the steadiest), each once: the last walk's in its order,
/// and a record only an earlier walk read placed after the one it followed there (or, first in
/// that walk, before the one that came next).
pub fn merged(mut walks: Vec<Walk>) -> Vec<Value> {
    let Some(last) = walks.pop() else {
        return Vec::new();
    };
    let mut out = last.records;
    let mut seen = last.seen;
    let place = |out: &[(String, Value)], key: &str| out.iter().position(|(k, _)| k == key);
    for walk in walks.into_iter().rev() {
        let keys: Vec<String> = walk.records.iter().map(|(k, _)| k.clone()).collect();
        let mut after: Option<usize> = None;
        for (i, (key, record)) in walk.records.into_iter().enumerate() {
            if seen.insert(key.clone()) {
                let at = match after {
                    Some(previous) => place(&out, &keys[previous]).map_or(out.len(), |p| p + 1),
                    None => (keys[i + 1..].iter())
                        .find_map(|next| place(&out, next))
                        .unwrap_or(out.len()),
                };
                out.insert(at, (key, record));
            }
            after = Some(i);
        }
    }
    out.into_iter().map(|(_, record)| record).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn records(ids: &[&str]) -> Vec<Value> {
        ids.iter().map(|id| json!({"_id": id})).collect()
    }

    fn ids(records: &[Value]) -> Vec<&str> {
        records.iter().map(|r| r["_id"].as_str().unwrap()).collect()
    }

    /// Reads `pages` (each with the total its envelope said) as one walk does, stopping where it
    /// would.
    fn walked(pages: &[(&[&str], i64)]) -> Walk {
        let mut walk = Walk::default();
        for (page, total) in pages {
            if !walk.add(records(page), *total) {
                break;
            }
        }
        walk
    }

    #[test]
    fn a_list_that_holds_still_is_one_steady_walk() {
        let walk = walked(&[(&["e", "d"], 5), (&["c", "b"], 5), (&["a"], 5)]);
        assert!(walk.steady);
        // One created and one archived meanwhile leave the total as it was, not the walk.
        let moved = walked(&[(&["e", "d"], 5), (&["c", "b"], 6), (&["a"], 5)]);
        assert!(!moved.steady);
        assert_eq!(ids(&merged(vec![walk])), ["e", "d", "c", "b", "a"]);
        let empty = walked(&[(&[], 0)]);
        assert!(empty.steady);
        assert!(merged(vec![empty]).is_empty());
    }

    #[test]
    fn a_record_created_meanwhile_is_not_read_twice() {
        // `f` created after the first page: `d` comes again at the head of the second. The walk
        // reads on to its end, an empty page.
        let walk = walked(&[
            (&["e", "d"], 5),
            (&["d", "c"], 6),
            (&["b", "a"], 6),
            (&[], 6),
        ]);
        assert!(!walk.steady);
        assert_eq!(walk.records.len(), 5);
        let again = walked(&[(&["f", "e"], 6), (&["d", "c"], 6), (&["b", "a"], 6)]);
        assert!(again.steady);
        assert_eq!(
            ids(&merged(vec![walk, again])),
            ["f", "e", "d", "c", "b", "a"]
        );
    }

    #[test]
    fn a_record_skipped_by_an_archive_is_read_by_another_walk() {
        // `e` archived after the first page: `b` moves onto it, never read by this walk.
        let first = walked(&[(&["e", "d"], 5), (&["c", "a"], 4)]);
        assert!(!first.steady);
        // The next walks see the list change again (`g` created, then `d` archived)…
        let second = walked(&[(&["g", "d"], 5), (&["c", "b"], 6)]);
        let third = walked(&[(&["h", "g"], 5), (&["c", "a"], 4)]);
        assert!(!second.steady && !third.steady);
        // …but together they read every record that was there throughout, each once, in order.
        assert_eq!(
            ids(&merged(vec![first, second, third])),
            ["h", "g", "e", "d", "c", "b", "a"]
        );
    }
}
