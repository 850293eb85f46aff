//! Which trigrams of a facility search term are rare, on PostgreSQL. The trigram index answers
//! `search_text LIKE '%clinica 4711%'` by reading the posting list of every trigram of the term,
//! and `cli` or `nic` are in every facility's name: at 100,000 facilities that term cost 2.1 ms in
//! the index, its rare part alone (`%4711%`) 0.2 ms (docs/benchmarks.md, twenty-first round). The
//! index keeps no count per trigram, so the counts come from a sample of the live facilities,
//! read again every [`SAMPLE_FOR`]. They only choose which trigrams the index reads: every
//! candidate is then checked with the whole term, so a stale or unlucky sample changes what a
//! search costs, never what it finds. SQLite reads exact counts from its FTS5 vocabulary instead
//! (`store::sqlite_reads::rare_trigrams`).

use sqlx::PgConnection;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a sample's counts are used before the next search reads a new sample.
const SAMPLE_FOR: Duration = Duration::from_secs(600);

/// About how many facilities a sample reads.
const SAMPLE_ROWS: f64 = 2_000.0;

/// A trigram as pg_trgm reads it from a pattern of its own: three ASCII letters or digits (a
/// space or another separator splits a pattern into words, and a word shorter than three
/// characters gives the index nothing to look up, so it would read every row).
type Trigram = [u8; 3];

/// How many sampled facilities hold each trigram.
type Counts = Arc<HashMap<Trigram, u32>>;

/// How many sampled facilities hold each trigram, and when they were counted. Per database
/// (kept by its read pool, `pg_reads`).
#[derive(Default)]
pub struct TrigramSample {
    counts: Mutex<Option<(Instant, Counts)>>,
}

impl TrigramSample {
    /// The two rarest trigrams of the search term `q` when it has some much rarer than others
    /// (`clinica 4711`: two of `471` and `711`, against `cli` in every name); empty when its
    /// trigrams are about as common as each other (`recife`), or the term is shorter, where the
    /// index's reading of every trigram costs no more.
    pub async fn rare(&self, conn: &mut PgConnection, q: &str) -> Vec<String> {
        let trigrams = trigrams(&registry_core::text::search_key(q.trim()));
        if trigrams.len() < 3 {
            return Vec::new();
        }
        let counts = self.counts(conn).await;
        rarest(&counts, trigrams)
    }

    /// The counts, sampled again when older than [`SAMPLE_FOR`]. While one request samples,
    /// the others go on with the previous counts (none at first: no rare trigrams). A failed
    /// sample fails no search.
    async fn counts(&self, conn: &mut PgConnection) -> Counts {
        let previous = {
            let mut held = self.counts.lock().unwrap_or_else(|p| p.into_inner());
            match &mut *held {
                Some((at, counts)) if at.elapsed() < SAMPLE_FOR => return counts.clone(),
                Some((at, counts)) => {
                    *at = Instant::now();
                    Some(counts.clone())
                }
                None => {
                    *held = Some((Instant::now(), Arc::default()));
                    None
                }
            }
        };
        match sample(conn).await {
            Ok(fresh) => self.keep(fresh),
            // Statistics, not answers: the search goes on with the previous counts (or none,
            // and the first search after this one samples again).
            Err(e) => {
                tracing::warn!(error = %e, "cannot sample the search trigrams");
                previous.unwrap_or_else(|| {
                    *self.counts.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    Arc::default()
                })
            }
        }
    }

    fn keep(&self, counts: HashMap<Trigram, u32>) -> Counts {
        let counts = Arc::new(counts);
        let mut held = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        *held = Some((Instant::now(), counts.clone()));
        counts
    }
}

/// The distinct trigrams of `text` that pg_trgm can look up alone, in order.
fn trigrams(text: &str) -> Vec<Trigram> {
    let mut found: Vec<Trigram> = text
        .as_bytes()
        .windows(3)
        .filter(|w| w.iter().all(u8::is_ascii_alphanumeric))
        .map(|w| [w[0], w[1], w[2]])
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// The two rarest of `trigrams` by `counts`, as `LIKE` patterns' text, when the commonest is more
/// than twice as common as the rarest; else none.
fn rarest(counts: &HashMap<Trigram, u32>, trigrams: Vec<Trigram>) -> Vec<String> {
    let mut counted: Vec<(u32, Trigram)> = trigrams
        .into_iter()
        .map(|t| (counts.get(&t).copied().unwrap_or(0), t))
        .collect();
    counted.sort_unstable();
    let (rarest, commonest) = (counted[0].0, counted[counted.len() - 1].0);
    if commonest <= 2 * rarest.max(1) {
        return Vec::new();
    }
    counted
        .into_iter()
        .take(2)
        .map(|(_, t)| String::from_utf8_lossy(&t).into_owned())
        .collect()
}

/// Counts the trigrams of about [`SAMPLE_ROWS`] live facilities, read from a share of the
/// table's pages (`TABLESAMPLE SYSTEM`: only those pages are read).
async fn sample(conn: &mut PgConnection) -> Result<HashMap<Trigram, u32>, sqlx::Error> {
    let live: Option<i64> =
        sqlx::query_scalar("SELECT CAST(SUM(live) AS BIGINT) FROM facility_counts")
            .fetch_one(&mut *conn)
            .await?;
    let percent = (100.0 * SAMPLE_ROWS / live.unwrap_or(0).max(1) as f64).min(100.0);
    let texts: Vec<String> =
        sqlx::query_scalar("SELECT search_text FROM facility_search TABLESAMPLE SYSTEM ($1)")
            .bind(percent)
            .fetch_all(conn)
            .await?;
    let mut counts: HashMap<Trigram, u32> = HashMap::new();
    for text in texts {
        let distinct: HashSet<Trigram> = trigrams(&text).into_iter().collect();
        for t in distinct {
            *counts.entry(t).or_default() += 1;
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u32)]) -> HashMap<Trigram, u32> {
        pairs
            .iter()
            .map(|(t, n)| (t.as_bytes().try_into().unwrap(), *n))
            .collect()
    }

    #[test]
    fn only_letters_and_digits_make_trigrams() {
        let found: Vec<String> = trigrams("a 47%11 clin")
            .iter()
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect();
        assert_eq!(found, ["cli", "lin"]);
    }

    #[test]
    fn the_rare_part_of_a_term_is_chosen_and_an_even_term_reads_every_trigram() {
        let sample = counts(&[
            ("cli", 900),
            ("lin", 900),
            ("ini", 900),
            ("nic", 900),
            ("ica", 900),
            ("471", 3),
        ]);
        // `711` is in no sampled facility: rarest; then `471`.
        assert_eq!(rarest(&sample, trigrams("clinica 4711")), ["711", "471"]);
        assert!(rarest(&sample, trigrams("clinica")).is_empty());
        // Unknown alike: nothing to choose between.
        assert!(rarest(&sample, trigrams("xyzw")).is_empty());
    }
}
