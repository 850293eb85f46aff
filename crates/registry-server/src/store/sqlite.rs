//! The SQLite backend: sqlx's SQLite driver over the schema of `migrations/sqlite`.

pub(crate) type Connection = sqlx::SqliteConnection;
pub(crate) type Db = sqlx::Sqlite;
pub(crate) type DbRow = sqlx::sqlite::SqliteRow;

pub(crate) mod dialect {
    use super::Connection;

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

    /// The ids of an `IN (…)` list as one bound JSON array (`$1`), read by `json_each`. With a
    /// placeholder per id the planner weighs each bound id against `sqlite_stat4` (once
    /// `ANALYZE` has run), so SQLite prepares the statement again every time it is rebound: for
    /// the facility views, five subqueries parsed again per read, a fifth of a page's CPU. The
    /// plan is the same index look-up per id, and one statement serves every page size.
    pub(crate) fn id_list(ids: &[impl AsRef<str> + serde::Serialize]) -> (String, Vec<String>) {
        let array = serde_json::to_string(ids).expect("a list of strings is JSON");
        ("SELECT value FROM json_each($1)".to_owned(), vec![array])
    }

    /// A facility's children as JSON columns (`json_group_array`).
    pub(crate) const FACILITY_CHILDREN: &str = "(SELECT json_group_array(json_object('street', a.street, 'city', a.city, 'state', a.state, \
                'complement', a.complement, 'zipCode', a.zip_code) ORDER BY a.position) \
                FROM facility_addresses a WHERE a.facility_id = f.id) AS address_json, \
             (SELECT json_group_array(json_object('_id', fu.user_id, 'responsabilities', json(fu.responsibilities), \
                'name', u.name, 'email', u.email, 'ANLicenseNumber', u.an_license_number, 'ANLicenseValidity', u.an_license_validity, \
                'FMLicenseNumber', u.fm_license_number, 'FMLicenseValidity', u.fm_license_validity) ORDER BY fu.position) \
                FROM facility_users fu JOIN users u ON u.id = fu.user_id WHERE fu.facility_id = f.id) AS users_json, \
             (SELECT json_group_array(json_object('name', r.name, 'quantity', json(printf('%!.17g', r.quantity))) ORDER BY r.position) \
                FROM facility_radioisotopes r WHERE r.facility_id = f.id) AS isotopes_json, \
             (SELECT json_group_array(p.practice) FROM facility_practices p WHERE p.facility_id = f.id) AS practices_json, \
             (SELECT group_concat(i.kind, ',') FROM facility_images i WHERE i.facility_id = f.id) AS image_kinds";

    /// The facility-list condition for the search text `q`: through the trigram index
    /// (`facility_search`, migration 0002) when the term has the three characters a trigram
    /// needs, and none that `LIKE` would read as a wildcard (FTS5 takes no `ESCAPE`); a `LIKE`
    /// scan of `facilities` otherwise. With `rare`, the term's rarest trigrams
    /// (`sqlite_reads::rare_trigrams`), only those are looked up in the index (a `LIKE` there
    /// reads every trigram's list, the longest too: `cli` of "clínica" lists every facility),
    /// and the candidates' text is checked with the `LIKE`.
    pub(crate) fn facility_search(q: &str, rare: &[String]) -> (String, Vec<String>) {
        let key = crate::db::search_key(q.trim());
        if key.chars().count() >= 3 && !key.contains(['%', '_', '\\']) {
            let pattern = format!("%{key}%");
            if rare.is_empty() {
                return (
                    "f.id IN (SELECT facility_id FROM facility_search WHERE search_text LIKE $?)"
                        .to_owned(),
                    vec![pattern],
                );
            }
            // Only the rarest trigrams read from the index; each candidate's text then checked.
            let phrases: Vec<String> = rare
                .iter()
                .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
                .collect();
            return (
                "f.id IN (SELECT facility_id FROM facility_search WHERE facility_search MATCH $?) \
                 AND f.search_text LIKE $?"
                    .to_owned(),
                vec![phrases.join(" AND "), pattern],
            );
        }
        (
            "f.search_text LIKE $? ESCAPE '\\'".to_owned(),
            vec![crate::db::contains_pattern(q)],
        )
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
