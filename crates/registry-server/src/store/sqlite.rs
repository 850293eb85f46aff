//! The SQLite backend: sqlx's SQLite driver over the schema of `migrations/sqlite`.

pub(crate) type Connection = sqlx::SqliteConnection;
pub(crate) type Db = sqlx::Sqlite;
pub(crate) type DbRow = sqlx::sqlite::SqliteRow;

pub(crate) mod dialect {
    use super::Connection;

    /// A day written into SQL (`YYYY-MM-DD`; a `NaiveDate` prints nothing else to quote).
    pub(crate) fn day_literal(day: chrono::NaiveDate) -> String {
        format!("'{day}'")
    }

    /// Row locks for a read → check → write: none, as SQLite's one writer connection runs
    /// every write transaction alone.
    pub(crate) const SKIP_LOCKED: &str = "";

    /// Serialises the writers of one kind: nothing to do (see `SKIP_LOCKED`).
    pub(crate) async fn serialise(
        _conn: &mut Connection,
        _writers: crate::store::Writers,
    ) -> Result<(), sqlx::Error> {
        Ok(())
    }

    /// `next_due = last_date + days` as `YYYY-MM-DD` text.
    pub(crate) const NEXT_DUE: &str = "date(p.last_date, '+' || p.days || ' days')";

    /// How many pairs of the registry-wide due lists fall due in `ranges` (conditions on
    /// `l.next_due`): a sum over the days that the triggers of migration 0008 keep, whatever the
    /// number of pairs.
    pub(crate) fn listed_due_count(ranges: &str) -> String {
        format!("SELECT COALESCE(SUM(l.pairs), 0) FROM qc_listed_due_days l WHERE {ranges}")
    }

    /// The ids of an `IN (…)` list as one bound JSON array (`$1`), read by `json_each`. With a
    /// placeholder per id the planner weighs each bound id against `sqlite_stat4` (once
    /// `ANALYZE` has run), so SQLite prepares the statement again every time it is rebound: for
    /// the facility views, five subqueries parsed again per read, a fifth of a page's CPU. The
    /// plan is the same index look-up per id, and one statement serves every page size.
    pub(crate) fn id_list(ids: &[impl AsRef<str> + serde::Serialize]) -> (String, Vec<String>) {
        let array = serde_json::to_string(ids).expect("a list of strings is JSON");
        ("SELECT value FROM json_each($1)".to_owned(), vec![array])
    }

    /// A facility's children as JSON columns: kept on its row by the triggers of migration 0011
    /// (which builds them through its view `facility_lists`), so a view reads one row.
    pub(crate) const FACILITY_CHILDREN: &str =
        "f.address_json, f.users_json, f.isotopes_json, f.practices_json, f.image_kinds";

    /// A filtered page of facility ids, newest first, with the filtered total: `matching` is the
    /// `FROM … WHERE …` of the matching facilities (alias `f`), and `$limit` and `$offset` are
    /// the numbers of the page's binds.
    pub(crate) fn filtered_page(matching: &str, limit: usize, offset: usize) -> String {
        format!(
            "SELECT f.id, COUNT(*) OVER () AS total FROM {matching} \
             ORDER BY f.id DESC LIMIT ${limit} OFFSET ${offset}"
        )
    }

    /// How the trigram index (`facility_search`, migration 0002: the live facilities' search
    /// texts) looks the search text `q` up: its condition on the FTS5 table, whether each
    /// candidate's text is then checked with the `LIKE`, and the values (the pattern last).
    /// None when the term lacks the three characters a trigram needs, or holds one that `LIKE`
    /// would read as a wildcard (FTS5 takes no `ESCAPE`). With `rare`, the term's rarest
    /// trigrams (`sqlite_reads::rare_trigrams`), only those are looked up (a `LIKE` there reads
    /// every trigram's list, the longest too: `cli` of "clínica" lists every facility), and the
    /// candidates' text is checked.
    fn indexed(q: &str, rare: &[String]) -> Option<(&'static str, bool, Vec<String>)> {
        let key = crate::db::search_key(q.trim());
        if key.chars().count() < 3 || key.contains(['%', '_', '\\']) {
            return None;
        }
        let pattern = format!("%{key}%");
        if rare.is_empty() {
            return Some(("search_text LIKE $?", false, vec![pattern]));
        }
        let phrases: Vec<String> = rare
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect();
        Some((
            "facility_search MATCH $?",
            true,
            vec![phrases.join(" AND "), pattern],
        ))
    }

    /// The matching rows (`FROM …`, alias `f`) of a search by `q` with no other filter, when
    /// the index answers it: the FTS5 table alone, which holds exactly the live facilities, so
    /// that a common term's matches are counted without a look-up of each in `facilities` (a
    /// city at 100,000 facilities: 20 → 12 ms, docs/benchmarks.md, twenty-second round). The
    /// candidates' check reads an expression, which FTS5 is not offered to answer.
    pub(crate) fn search_alone(q: &str, rare: &[String]) -> Option<(String, Vec<String>)> {
        let (lookup, check, values) = indexed(q, rare)?;
        let rows = format!(
            "(SELECT facility_id AS id, search_text FROM facility_search WHERE {lookup}) f"
        );
        Some(match check {
            true => (
                format!("{rows} WHERE (f.search_text || '') LIKE $?"),
                values,
            ),
            false => (rows, values),
        })
    }

    /// The facility-list condition for the search text `q`: through the trigram index when it
    /// answers (`indexed`), a `LIKE` scan of `facilities` otherwise.
    pub(crate) fn facility_search(q: &str, rare: &[String]) -> (String, Vec<String>) {
        match indexed(q, rare) {
            Some((lookup, check, values)) => {
                let mut clause =
                    format!("f.id IN (SELECT facility_id FROM facility_search WHERE {lookup})");
                if check {
                    clause.push_str(" AND f.search_text LIKE $?");
                }
                (clause, values)
            }
            None => (
                "f.search_text LIKE $? ESCAPE '\\'".to_owned(),
                vec![crate::db::contains_pattern(q)],
            ),
        }
    }

    /// One writer at a time: the rows a rank shift updates need no lock of their own.
    pub(crate) async fn hold_live_after(
        _conn: &mut Connection,
        _id: &str,
    ) -> Result<(), sqlx::Error> {
        Ok(())
    }

    /// Locks a row until the transaction ends: nothing to do (see `SKIP_LOCKED`).
    pub(crate) async fn lock_row(
        _conn: &mut Connection,
        _table: &'static str,
        _id: &str,
        _shared: bool,
    ) -> Result<(), sqlx::Error> {
        Ok(())
    }
}

shared_queries!();
