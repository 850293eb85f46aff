//! The PostgreSQL backend: sqlx's PostgreSQL driver over the schema of `migrations/postgres`.

pub(crate) type Connection = sqlx::PgConnection;
pub(crate) type Db = sqlx::Postgres;
pub(crate) type DbRow = sqlx::postgres::PgRow;

pub(crate) mod dialect {
    use super::Connection;

    /// A day written into SQL (`YYYY-MM-DD`; a `NaiveDate` prints nothing else to quote).
    pub(crate) fn day_literal(day: chrono::NaiveDate) -> String {
        format!("DATE '{day}'")
    }

    /// The ids of an `IN (…)` list: a placeholder per id (`$1`…`$n`).
    pub(crate) fn id_list(ids: &[impl AsRef<str> + serde::Serialize]) -> (String, Vec<String>) {
        let binds = ids.iter().map(|id| id.as_ref().to_owned()).collect();
        (crate::db::placeholders(1, ids.len()), binds)
    }

    /// Claimed queue rows are locked and skipped by concurrent claimers.
    pub(crate) const SKIP_LOCKED: &str = " FOR UPDATE SKIP LOCKED";

    /// Serialises the writers of one kind until their transactions end: a transaction-scoped
    /// advisory lock, granted in arrival order. (For the rank writers, row locks on
    /// `facility_counts` did the same, but every commit woke all their waiters to race for the
    /// rows again: creates fell from ≈ 350/s with one client to ≈ 70/s with 32.)
    pub(crate) async fn serialise(
        conn: &mut Connection,
        writers: crate::store::Writers,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(writers.key())
            .execute(conn)
            .await?;
        Ok(())
    }

    /// `next_due = last_date + days` (a `date`).
    pub(crate) const NEXT_DUE: &str = "p.last_date + CAST(p.days AS integer)";

    /// How many pairs of the registry-wide due lists fall due in `ranges` (conditions on
    /// `l.next_due`): a sum over the rows of changes that the triggers of migration 0010 add,
    /// whatever the number of pairs.
    pub(crate) fn listed_due_count(ranges: &str) -> String {
        format!(
            "SELECT CAST(COALESCE(SUM(l.pairs), 0) AS BIGINT) FROM qc_listed_due_changes l WHERE {ranges}"
        )
    }

    /// Folds the rows of changes of each day into one (migration 0010), when some day has
    /// several; whether it did. Rows that writers still to commit add are not seen, so they
    /// stay; rows another instance folds at the same time are its to replace.
    pub(crate) async fn compact_due_counts(conn: &mut Connection) -> Result<bool, sqlx::Error> {
        let spare: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) - COUNT(DISTINCT next_due) FROM qc_listed_due_changes",
        )
        .fetch_one(&mut *conn)
        .await?;
        if spare == 0 {
            return Ok(false);
        }
        sqlx::query(
            "WITH folded AS (DELETE FROM qc_listed_due_changes RETURNING next_due, pairs) \
             INSERT INTO qc_listed_due_changes (next_due, pairs) \
             SELECT next_due, SUM(pairs) FROM folded GROUP BY next_due HAVING SUM(pairs) <> 0",
        )
        .execute(conn)
        .await?;
        Ok(true)
    }

    /// A facility's children as JSON columns: kept on its row by the triggers of migration 0006,
    /// so a view reads one row (the correlated lookups they replace cost ≈ 60 % of a page).
    pub(crate) const FACILITY_CHILDREN: &str = "f.address_json::text AS address_json, f.users_json::text AS users_json, \
             f.isotopes_json::text AS isotopes_json, f.practices_json::text AS practices_json, f.image_kinds";

    /// A filtered page of facility ids, newest first, with the filtered total: `matching` is the
    /// `FROM … WHERE …` of the matching facilities (alias `f`), and `$limit` and `$offset` are
    /// the numbers of the page's binds. The matches are gathered first (`MATERIALIZED`): the
    /// total needs every one of them, but with the filter, the order and the `LIMIT` in one query
    /// PostgreSQL walked the whole list in order checking each row for a common term (9–40 ms at
    /// 10,000 facilities) where the trigram index finds them all in 1–5 ms (docs/benchmarks.md,
    /// fourteenth round). The total is a count of the gathered matches: a window count over them
    /// cost 1.5 ms more of a city term's 14 at 100,000 facilities (twenty-second round).
    pub(crate) fn filtered_page(matching: &str, limit: usize, offset: usize) -> String {
        format!(
            "WITH matching AS MATERIALIZED (SELECT f.id FROM {matching}) \
             SELECT id, (SELECT COUNT(*) FROM matching) AS total FROM matching \
             ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}"
        )
    }

    /// The condition on `{alias}.search_text` for the search text `q`: a `LIKE` that the trigram
    /// GIN index `facility_search_trgm` (`store::upkeep`) answers when the term has three or
    /// more characters. With `rare`, the term's rare trigrams (`pg_trigrams`, three letters or
    /// digits each), the index reads only those (a pattern of one trigram gives it that one to
    /// look up), and each candidate is checked with the whole term on an expression the index
    /// does not answer.
    fn search_condition(alias: &str, q: &str, rare: &[String]) -> (String, Vec<String>) {
        let whole = crate::db::contains_pattern(q);
        let mut clauses = vec![format!("{alias}.search_text LIKE $?"); rare.len()];
        clauses.push(match rare.is_empty() {
            true => format!("{alias}.search_text LIKE $? ESCAPE '\\'"),
            false => format!("({alias}.search_text || '') LIKE $? ESCAPE '\\'"),
        });
        let mut values: Vec<String> = rare.iter().map(|t| format!("%{t}%")).collect();
        values.push(whole);
        (clauses.join(" AND "), values)
    }

    /// The facility-list condition for the search text `q` (`search_condition`), on the live
    /// facilities' search texts kept apart from their wide rows (`facility_search`, migration
    /// 0011).
    pub(crate) fn facility_search(q: &str, rare: &[String]) -> (String, Vec<String>) {
        let (condition, values) = search_condition("s", q, rare);
        let clause = format!("f.id IN (SELECT s.id FROM facility_search s WHERE {condition})");
        (clause, values)
    }

    /// The matching rows (`FROM … WHERE …`, alias `f`) of a search by `q` with no other
    /// filter: the narrow `facility_search` alone, which holds exactly the live facilities.
    /// Their wide rows are not read at all: checking a common term's 12,500 matches there (a
    /// city, one facility in eight at 100,000) cost twice the search (docs/benchmarks.md,
    /// twenty-second round).
    pub(crate) fn search_alone(q: &str, rare: &[String]) -> Option<(String, Vec<String>)> {
        let (condition, values) = search_condition("f", q, rare);
        Some((format!("facility_search f WHERE {condition}"), values))
    }

    /// Locks the live facilities after `id` in id order (`FOR NO KEY UPDATE`): the rows a rank
    /// shift around `id` may update (ranks follow ids), taken in the order every other
    /// multi-facility lock uses (a rebuild of kept lists, migration 0006), where the shift's
    /// `UPDATE` locked them in whatever order it scanned them and deadlocked with a rebuild.
    pub(crate) async fn hold_live_after(
        conn: &mut Connection,
        id: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("SELECT 1 FROM facilities WHERE archived_at IS NULL AND id > $1 ORDER BY id FOR NO KEY UPDATE")
            .bind(id)
            .execute(conn)
            .await?;
        Ok(())
    }

    /// Locks a row until the transaction ends: `FOR UPDATE`, or `FOR KEY SHARE` when `shared`.
    pub(crate) async fn lock_row(
        conn: &mut Connection,
        table: &'static str,
        id: &str,
        shared: bool,
    ) -> Result<(), sqlx::Error> {
        let mode = if shared { "KEY SHARE" } else { "UPDATE" };
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT 1 FROM {table} WHERE id = $1 FOR {mode}"
        )))
        .bind(id)
        .fetch_optional(conn)
        .await?;
        Ok(())
    }
}

shared_queries!();

/// Reads that PostgreSQL answers in one statement where SQLite takes two in-process reads.
pub(crate) mod combined {
    use super::Connection;
    use super::facility_reads::{facility_from_row, view_columns};
    use crate::store::model::users::UserAuth;
    use crate::store::types::Columns;
    use registry_core::api::Facility;

    /// The account of `user_id`, whether it is linked to the facility `id` and, with `view`, the
    /// live facility, in one statement: no row when the account does not exist.
    pub(crate) async fn facility_with_account(
        conn: &mut Connection,
        id: &str,
        user_id: &str,
        view: bool,
    ) -> Result<(Option<Facility>, Option<UserAuth>, bool), sqlx::Error> {
        let caller = "u.name AS caller_name, u.email AS caller_email, u.roles AS caller_roles, \
             u.active AS caller_active, u.token_version AS caller_token_version, \
             EXISTS (SELECT 1 FROM facility_users m WHERE m.facility_id = $1 AND m.user_id = $2) AS caller_member";
        let sql = match view {
            true => format!(
                "SELECT {}, {caller} FROM users u \
                 LEFT JOIN facilities f ON f.id = $1 AND f.archived_at IS NULL \
                 LEFT JOIN facility_groups g ON g.id = f.group_id WHERE u.id = $2",
                view_columns()
            ),
            false => format!("SELECT NULL AS id, {caller} FROM users u WHERE u.id = $2"),
        };
        let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(user_id)
            .fetch_optional(conn)
            .await?
        else {
            return Ok((None, None, false));
        };
        let facility = match row.text_opt("id")? {
            Some(_) => Some(facility_from_row(&row)?),
            None => None,
        };
        let account = UserAuth {
            name: row.text("caller_name")?,
            email: row.text("caller_email")?,
            roles: serde_json::from_str(&row.json("caller_roles")?)
                .map_err(|e| sqlx::Error::Decode(e.into()))?,
            active: row.boolean("caller_active")?,
            token_version: row.int("caller_token_version")?,
        };
        Ok((facility, Some(account), row.boolean("caller_member")?))
    }
}
