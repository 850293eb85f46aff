//! Dense ranks of the live facilities in id order (1 = oldest): `live_rank` over all of them and
//! `department_rank` within their department (migration 0003). Every insert, archive and
//! department change keeps them without gaps, so that a page of the unfiltered or per-department
//! list is an index range (`page_ids`) and costs the same on page 1 and page 5,000, where
//! `OFFSET` walks every skipped row.
//!
//! New ids are time-ordered (UUIDv7), so a new facility normally ranks last and no other row
//! moves; archiving shifts the ranks above it down by one (an update of those rows: archives are
//! rare). The writers serialise on one lock (`dialect::serialise`); they alone update
//! `facility_counts`.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::Connection;
use sqlx::{AssertSqlSafe, Row};

/// One of the two rankings: its column and, for a department's, the department.
#[derive(Clone, Copy)]
enum Ranking<'a> {
    All,
    Department(&'a str),
}

impl Ranking<'_> {
    fn column(self) -> &'static str {
        match self {
            Ranking::All => "live_rank",
            Ranking::Department(_) => "department_rank",
        }
    }

    /// The condition selecting the ranking's rows, with `$1` bound to `department()` (NULL for
    /// the overall ranking, which holds every live facility).
    fn rows(self) -> &'static str {
        match self {
            Ranking::All => "$1 IS NULL",
            Ranking::Department(_) => "department = $1",
        }
    }

    fn department(self) -> Option<String> {
        match self {
            Ranking::All => None,
            Ranking::Department(d) => Some(d.to_owned()),
        }
    }
}

/// Serialises the writers that change ranks until the transaction ends.
pub async fn lock(conn: &mut Connection) -> Result<(), sqlx::Error> {
    super::dialect::serialise(conn, crate::store::Writers::Ranks).await
}

/// [`lock`], then the live facilities after `id`, in id order: the rows a shift of ranks around
/// `id` updates (ranks follow ids), locked in the order every lock of several facilities takes
/// (`dialect::hold_live_after`), for an archive or a department move.
pub async fn lock_around(conn: &mut Connection, id: &str) -> Result<(), sqlx::Error> {
    lock(conn).await?;
    super::dialect::hold_live_after(conn, id).await
}

/// Makes room in `ranking` for the live facility `id`, which it does not hold yet: moves up the
/// ranks from its place on, and returns its rank, for the caller to write with the row (one
/// write of the row: its other indexes — the trigram index among them — are not touched twice).
async fn make_room(
    conn: &mut Connection,
    ranking: Ranking<'_>,
    id: &str,
) -> Result<i64, sqlx::Error> {
    let (column, rows) = (ranking.column(), ranking.rows());
    // The rank of the live facility just before it in id order (an index lookup).
    let before: Option<i64> = sqlx::query_scalar(AssertSqlSafe(format!(
        "SELECT {column} FROM facilities WHERE {rows} AND archived_at IS NULL AND id < $2 \
         ORDER BY id DESC LIMIT 1"
    )))
    .bind(ranking.department())
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?
    .flatten();
    let rank = before.unwrap_or(0) + 1;
    sqlx::query(AssertSqlSafe(format!(
        "UPDATE facilities SET {column} = {column} + 1 WHERE {rows} AND {column} >= $2"
    )))
    .bind(ranking.department())
    .bind(rank)
    .execute(conn)
    .await?;
    Ok(rank)
}

/// The ranks `(overall, in its department)` of a new live facility, not stored yet. Its id is
/// normally the latest (time-ordered ids), so it ranks last in both: one statement reads the
/// ranks of the live facilities just before it and whether a live one comes after it (the last
/// id, an index's end: PostgreSQL's generic plan for "any id after it" scanned the table); only
/// then do ranks move up (`make_room`).
pub async fn for_new(
    conn: &mut Connection,
    id: &str,
    department: &str,
) -> Result<(i64, i64), sqlx::Error> {
    let row = sqlx::query(
        "SELECT (SELECT live_rank FROM facilities WHERE archived_at IS NULL AND id < $2 \
                 ORDER BY id DESC LIMIT 1) AS overall, \
                (SELECT department_rank FROM facilities WHERE department = $1 AND archived_at IS NULL \
                 AND id < $2 ORDER BY id DESC LIMIT 1) AS within, \
                (SELECT CAST(CASE WHEN MAX(id) > $2 THEN 1 ELSE 0 END AS BIGINT) FROM facilities \
                 WHERE archived_at IS NULL) AS later",
    )
    .bind(department)
    .bind(id)
    .fetch_one(&mut *conn)
    .await?;
    if row.try_get::<i64, _>("later")? > 0 {
        super::dialect::hold_live_after(conn, id).await?;
        let overall = make_room(conn, Ranking::All, id).await?;
        let within = make_room(conn, Ranking::Department(department), id).await?;
        return Ok((overall, within));
    }
    let overall: Option<i64> = row.try_get("overall")?;
    let within: Option<i64> = row.try_get("within")?;
    Ok((overall.unwrap_or(0) + 1, within.unwrap_or(0) + 1))
}

/// The ranks `(overall, in its department)` of new live facilities `(id, department)` appended
/// in this order: each after every stored facility and the one before it, so each ranks last.
pub async fn for_appended(
    conn: &mut Connection,
    new: &[(&str, &str)],
) -> Result<Vec<(i64, i64)>, sqlx::Error> {
    let tops = sqlx::query(
        "SELECT department, MAX(live_rank) AS overall, MAX(department_rank) AS within, MAX(id) AS last \
         FROM facilities WHERE archived_at IS NULL GROUP BY department",
    )
    .fetch_all(&mut *conn)
    .await?;
    let (mut overall, mut within, mut last) = (0, Vec::<(String, i64)>::new(), String::new());
    for row in tops {
        overall = overall.max(row.try_get::<Option<i64>, _>("overall")?.unwrap_or(0));
        last = last.max(row.try_get::<String, _>("last")?);
        let top = row.try_get::<Option<i64>, _>("within")?.unwrap_or(0);
        within.push((row.try_get("department")?, top));
    }
    let mut ranks = Vec::with_capacity(new.len());
    for &(id, department) in new {
        if *id <= *last {
            return Err(sqlx::Error::InvalidArgument(format!(
                "facility {id} does not come after {last}: appended facilities rank last"
            )));
        }
        last = id.to_owned();
        overall += 1;
        let top = match within.iter_mut().find(|(d, _)| d == department) {
            Some((_, top)) => top,
            None => {
                within.push((department.to_owned(), 0));
                &mut within.last_mut().expect("just pushed").1
            }
        };
        *top += 1;
        ranks.push((overall, *top));
    }
    Ok(ranks)
}

/// The rank in `department` of the live facility `id` moving there (still stored in its old
/// department, whose gap `leave` closes).
pub async fn for_move(
    conn: &mut Connection,
    id: &str,
    department: &str,
) -> Result<i64, sqlx::Error> {
    make_room(conn, Ranking::Department(department), id).await
}

/// The facility `id`'s ranks as stored: `(department, overall, in its department)`.
pub async fn of(
    conn: &mut Connection,
    id: &str,
) -> Result<Option<(String, Option<i64>, Option<i64>)>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT department, live_rank, department_rank FROM facilities WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.map(|r| {
        Ok((
            r.try_get("department")?,
            r.try_get("live_rank")?,
            r.try_get("department_rank")?,
        ))
    })
    .transpose()
}

/// Closes the gaps a facility leaves at `overall` (when it leaves the whole list) and at
/// `within` in `department`: the ranks above move down by one.
pub async fn leave(
    conn: &mut Connection,
    department: &str,
    overall: Option<i64>,
    within: Option<i64>,
) -> Result<(), sqlx::Error> {
    let gaps = [
        (Ranking::All, overall),
        (Ranking::Department(department), within),
    ];
    for (ranking, rank) in gaps {
        let Some(rank) = rank else { continue };
        let (column, rows) = (ranking.column(), ranking.rows());
        sqlx::query(AssertSqlSafe(format!(
            "UPDATE facilities SET {column} = {column} - 1 WHERE {rows} AND {column} > $2"
        )))
        .bind(ranking.department())
        .bind(rank)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// The condition selecting a ranking's rows (`$1` the department, NULL for the whole list;
/// archived rows hold no rank) and its rank column, for a page read in one statement
/// (`facility_reads::ranked_page_sql`).
pub(crate) fn ranking_sql(department: Option<&str>) -> (&'static str, &'static str) {
    let ranking = match department {
        Some(d) => Ranking::Department(d),
        None => Ranking::All,
    };
    (ranking.rows(), ranking.column())
}
