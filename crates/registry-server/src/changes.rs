//! What committed writes changed, kept as counters that the read cache ([`crate::cache`]) stamps
//! its answers with, so that a write drops only the answers that depend on what it changed.
//!
//! A write announces a [`Changed`] when it commits (everything, unless the handler narrowed it
//! with [`crate::db::Tx::announce`]). A cached answer names what it was read from ([`ReadOf`]);
//! its stamp is the sum of the counters it depends on. Counters only grow, so the sum is unchanged
//! exactly when none of them moved: an answer is served again only while that holds.

use std::sync::atomic::{AtomicU64, Ordering};

/// Facilities are tracked in this many buckets (by a hash of the id): a write to one facility
/// drops the cached answers of the facilities in its bucket only.
const FACILITY_BUCKETS: usize = 1024;

/// What one committed write changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Changed {
    /// Anything at all: every cached answer is dropped. The default of every write.
    Everything,
    /// Only facility records, and through them possibly the lists they appear in.
    Facilities {
        /// The facilities whose own answers (`GET /facility/{id}`) changed.
        ids: Vec<String>,
        /// Whether the facility lists and searches may have changed.
        lists: bool,
        /// Whether the due lists may have changed (a facility's name, department, users, or
        /// archiving: what due lists show or select by).
        due: bool,
    },
}

/// What a cached answer was read from.
#[derive(Clone, Copy, Debug)]
pub enum ReadOf<'a> {
    /// One facility's answer.
    Facility(&'a str),
    /// A facility list or search.
    FacilityLists,
    /// A due or overdue list.
    DueLists,
    /// Anything else (such as a token's user): dropped by every write that is not narrowed.
    Other,
}

/// The counters of one database handle (shared by its clones).
pub struct Generations {
    everything: AtomicU64,
    facility_lists: AtomicU64,
    due_lists: AtomicU64,
    facilities: Box<[AtomicU64]>,
}

impl Default for Generations {
    fn default() -> Self {
        Generations {
            everything: AtomicU64::new(0),
            facility_lists: AtomicU64::new(0),
            due_lists: AtomicU64::new(0),
            facilities: (0..FACILITY_BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl Generations {
    /// The stamp of an answer read from `read`; take it *before* reading the data.
    pub fn stamp(&self, read: ReadOf) -> u64 {
        let everything = self.everything.load(Ordering::Acquire);
        let own = match read {
            ReadOf::Facility(id) => self.bucket(id).load(Ordering::Acquire),
            ReadOf::FacilityLists => self.facility_lists.load(Ordering::Acquire),
            ReadOf::DueLists => self.due_lists.load(Ordering::Acquire),
            ReadOf::Other => 0,
        };
        everything.wrapping_add(own)
    }

    /// Records a committed write; call it *after* the commit.
    pub fn advance(&self, changed: &Changed) {
        match changed {
            Changed::Everything => {
                self.everything.fetch_add(1, Ordering::AcqRel);
            }
            Changed::Facilities { ids, lists, due } => {
                for id in ids {
                    self.bucket(id).fetch_add(1, Ordering::AcqRel);
                }
                if *lists {
                    self.facility_lists.fetch_add(1, Ordering::AcqRel);
                }
                if *due {
                    self.due_lists.fetch_add(1, Ordering::AcqRel);
                }
            }
        }
    }

    fn bucket(&self, id: &str) -> &AtomicU64 {
        &self.facilities[bucket_of(id)]
    }
}

/// The bucket that facility `id` is tracked in: FNV-1a, the same bucket for the same id on every
/// instance and every run. Two facilities in one bucket drop each other's cached answers.
pub fn bucket_of(id: &str) -> usize {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % FACILITY_BUCKETS as u64) as usize
}

impl Changed {
    /// The form sent to other instances in a change notification.
    pub fn encode(&self) -> String {
        match self {
            Changed::Everything => "*".to_owned(),
            Changed::Facilities { ids, lists, due } => {
                let mut parts = vec![format!("lists={}", u8::from(*lists))];
                parts.push(format!("due={}", u8::from(*due)));
                parts.extend(ids.iter().map(|id| format!("f={id}")));
                parts.join(" ")
            }
        }
    }

    /// Reads [`Changed::encode`]'s form; anything else (such as an older instance's
    /// notification) counts as everything.
    pub fn decode(text: &str) -> Changed {
        let mut ids = Vec::new();
        let (mut lists, mut due) = (None, None);
        for part in text.split(' ') {
            match part.split_once('=') {
                Some(("lists", v)) => lists = Some(v == "1"),
                Some(("due", v)) => due = Some(v == "1"),
                Some(("f", id)) if !id.is_empty() => ids.push(id.to_owned()),
                _ => return Changed::Everything,
            }
        }
        match (lists, due) {
            (Some(lists), Some(due)) => Changed::Facilities { ids, lists, due },
            _ => Changed::Everything,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(id: &str, lists: bool, due: bool) -> Changed {
        Changed::Facilities {
            ids: vec![id.to_owned()],
            lists,
            due,
        }
    }

    #[test]
    fn a_facility_write_moves_only_what_depends_on_it() {
        let g = Generations::default();
        let (a, b) = ("0190-aaaa", "0190-bbbb");
        assert!(
            !std::ptr::eq(g.bucket(a), g.bucket(b)),
            "test ids share a bucket"
        );
        let read = |g: &Generations| {
            [
                g.stamp(ReadOf::Facility(a)),
                g.stamp(ReadOf::Facility(b)),
                g.stamp(ReadOf::FacilityLists),
                g.stamp(ReadOf::DueLists),
                g.stamp(ReadOf::Other),
            ]
        };
        let before = read(&g);
        g.advance(&edit(a, true, false));
        let after = read(&g);
        let moved: Vec<bool> = before.iter().zip(after).map(|(x, y)| *x != y).collect();
        assert_eq!(moved, [true, false, true, false, false]);

        let before = after;
        g.advance(&edit(b, false, true));
        let after = read(&g);
        let moved: Vec<bool> = before.iter().zip(after).map(|(x, y)| *x != y).collect();
        assert_eq!(moved, [false, true, false, true, false]);

        let before = after;
        g.advance(&Changed::Everything);
        assert!(before.iter().zip(read(&g)).all(|(x, y)| *x != y));
    }

    #[test]
    fn notifications_round_trip_and_unknown_forms_mean_everything() {
        for changed in [
            Changed::Everything,
            edit("0190-aaaa", true, true),
            Changed::Facilities {
                ids: vec![],
                lists: true,
                due: false,
            },
        ] {
            assert_eq!(Changed::decode(&changed.encode()), changed);
        }
        for other in ["", "lists=1", "due=0 lists=1 x=2", "something else"] {
            assert_eq!(Changed::decode(other), Changed::Everything, "{other:?}");
        }
    }
}
