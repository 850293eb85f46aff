//! Facility records: the facility row and its children (addresses, user links, radioisotopes,
//! practices, images), loaded for a page in a fixed number of queries.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::facility_ranks as ranks;
use super::row::exists;
use super::{Connection, Db};
use crate::db::{placeholders, search_key};
use crate::store::model::facilities::*;
use crate::store::types::Ts;
use registry_core::{Department, Responsibility};
use sqlx::query::Query;
use sqlx::{AssertSqlSafe, Row};

/// Tables whose rows link a facility to records (equipment, documents, QC tests); a linked
/// facility's cnpj is locked. Archived records still count: they are history.
const RECORD_LINKS: &[&str] = &["equipment", "qc_tests", "documents"];

/// Binds the stored fields of `r` as the next seven parameters: name, company name, cnpj,
/// telephone, department, group and CNEN registry.
fn bind_fields<'q>(
    q: Query<'q, Db, <Db as sqlx::Database>::Arguments>,
    r: &'q FacilityRecord,
) -> Query<'q, Db, <Db as sqlx::Database>::Arguments> {
    let f = &r.fields;
    q.bind(&f.name)
        .bind(&f.company_name)
        .bind(&f.cnpj)
        .bind(&f.telephone)
        .bind(f.department.as_str())
        .bind(&f.group_id)
        .bind(&f.cnen_registry)
}

/// What a search finds the facility by (`q` of product.md §2): its name, company name, cnpj and
/// cities, lower-case and without accents, each apart (`text::search_text`).
fn search_text(f: &FacilityFields) -> String {
    let cities = f.address.iter().map(|a| a.city.as_str());
    search_text_of(&f.name, &f.company_name, &f.cnpj, cities)
}

/// [`search_text`] from the stored columns (`upgrades`).
pub(crate) fn search_text_of<'a>(
    name: &'a str,
    company_name: &'a str,
    cnpj: &'a str,
    cities: impl IntoIterator<Item = &'a str>,
) -> String {
    registry_core::text::search_text([name, company_name, cnpj].into_iter().chain(cities))
}

pub async fn insert(conn: &mut Connection, r: &FacilityRecord) -> Result<(), sqlx::Error> {
    ranks::lock(conn).await?;
    let ranks = ranks::for_new(conn, &r.id, r.fields.department.as_str()).await?;
    write_new(conn, &[r], &[ranks]).await
}

/// Inserts new facilities with one statement per table: a bulk load (the benchmark's seeder).
/// `records` must be in id order and all after every live facility, so that each ranks last in
/// turn; at most 2,000 of them, under the bound-parameter limits.
pub async fn insert_many(conn: &mut Connection, records: &[FacilityRecord]) -> Result<(), sqlx::Error> {
    ranks::lock(conn).await?;
    let new: Vec<(&str, &str)> = records
        .iter()
        .map(|r| (r.id.as_str(), r.fields.department.as_str()))
        .collect();
    let ranks = ranks::for_appended(conn, &new).await?;
    let records: Vec<&FacilityRecord> = records.iter().collect();
    write_new(conn, &records, &ranks).await
}

/// The rows of new facilities, ranked `(overall, in the department)`, with their children, and
/// their departments' live counts.
async fn write_new(
    conn: &mut Connection,
    records: &[&FacilityRecord],
    ranks: &[(i64, i64)],
) -> Result<(), sqlx::Error> {
    let rows = records
        .iter()
        .zip(ranks)
        .map(|(r, &(live_rank, department_rank))| {
            let f = &r.fields;
            vec![
                Param::text(&r.id),
                Param::text(&f.name),
                Param::text(&f.company_name),
                Param::text(&f.cnpj),
                Param::text(&f.telephone),
                Param::text(f.department.as_str()),
                Param::Text(f.group_id.clone()),
                Param::Text(f.cnen_registry.clone()),
                Param::Text(Some(search_text(f))),
                Param::Int(r.version),
                Param::Ts(r.created_at.clone()),
                Param::Ts(r.updated_at.clone()),
                Param::Int(live_rank),
                Param::Int(department_rank),
            ]
        })
        .collect();
    let columns = [
        "id", "name", "company_name", "cnpj", "telephone", "department", "group_id", "cnen_registry",
        "search_text", "version", "created_at", "updated_at", "live_rank", "department_rank",
    ];
    insert_rows(conn, "facilities", &columns, rows).await?;
    let mut children = records.iter().map(|r| child_rows(r, |_| true));
    if let Some(mut tables) = children.next() {
        for more in children {
            for ((_, _, rows), (_, _, more)) in tables.iter_mut().zip(more) {
                rows.extend(more);
            }
        }
        for (table, columns, rows) in tables {
            insert_rows(conn, table, columns, rows).await?;
        }
    }
    for &department in Department::ALL {
        let added = records.iter().filter(|r| r.fields.department == department).count();
        if added > 0 {
            adjust_count(conn, department, added as i64).await?;
        }
    }
    Ok(())
}

/// Keeps `facility_counts` in step with the live facilities of a department.
async fn adjust_count(
    conn: &mut Connection,
    department: Department,
    delta: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE facility_counts SET live = live + $2 WHERE department = $1")
        .bind(department.as_str())
        .bind(delta)
        .execute(conn)
        .await?;
    Ok(())
}

/// Saves the row of `r`, whose stored fields are `stored`, and replaces the children that
/// differ: an edit of the telephone writes one row, not five tables (nor, on SQLite, the search
/// index: its trigger runs only when the search text changes).
pub async fn update(
    conn: &mut Connection,
    stored: &FacilityFields,
    r: &FacilityRecord,
) -> Result<(), sqlx::Error> {
    let (before, after) = (stored.department, r.fields.department);
    // A move to the other department: out of the old one's ranking, a place in the new one's.
    let mut department_rank: Option<i64> = None;
    if before != after {
        ranks::lock_around(conn, &r.id).await?;
        if let Some((old, _, Some(within))) = ranks::of(conn, &r.id).await? {
            ranks::leave(conn, &old, None, Some(within)).await?;
        }
        department_rank = Some(ranks::for_move(conn, &r.id, after.as_str()).await?);
        adjust_count(conn, before, -1).await?;
        adjust_count(conn, after, 1).await?;
    }
    let update = sqlx::query(
        "UPDATE facilities SET name = $2, company_name = $3, cnpj = $4, telephone = $5, department = $6, group_id = $7, \
         cnen_registry = $8, search_text = $9, version = $10, updated_at = $11, \
         department_rank = COALESCE($12, department_rank) WHERE id = $1",
    )
    .bind(&r.id);
    bind_fields(update, r)
    .bind(search_text(&r.fields))
    .bind(r.version)
    .bind(Ts(&r.updated_at))
    .bind(department_rank)
    .execute(&mut *conn)
    .await?;
    let new = &r.fields;
    let changed = [
        ("facility_addresses", stored.address != new.address),
        ("facility_users", stored.users != new.users),
        ("facility_radioisotopes", stored.radioisotopes != new.radioisotopes),
        ("facility_practices", stored.practices != new.practices),
    ];
    for (table, _) in changed.iter().filter(|(_, changed)| *changed) {
        sqlx::query(AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE facility_id = $1"
        )))
        .bind(&r.id)
        .execute(&mut *conn)
        .await?;
    }
    insert_children(conn, r, |table| changed.contains(&(table, true))).await
}

/// Inserts `rows` (each with one value per column) into `table` in one statement.
pub async fn insert_rows(
    conn: &mut Connection,
    table: &str,
    columns: &[&str],
    rows: Vec<Vec<Param>>,
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let width = columns.len();
    let values: Vec<String> = (0..rows.len())
        .map(|i| format!("({})", placeholders(i * width + 1, width)))
        .collect();
    let sql = format!(
        "INSERT INTO {table} ({}) VALUES {}",
        columns.join(", "),
        values.join(", ")
    );
    let mut q = sqlx::query(AssertSqlSafe(sql));
    for v in rows.into_iter().flatten() {
        q = super::row::bind(q, v);
    }
    q.execute(conn).await?;
    Ok(())
}

/// A child table, its columns and the rows to insert.
type ChildRows<'a> = (&'a str, &'a [&'a str], Vec<Vec<Param>>);

/// Inserts the child rows of `r` (addresses, user links, radioisotopes, practices) into the
/// tables `wanted` names.
async fn insert_children(
    conn: &mut Connection,
    r: &FacilityRecord,
    wanted: impl Fn(&str) -> bool,
) -> Result<(), sqlx::Error> {
    for (table, columns, rows) in child_rows(r, wanted) {
        insert_rows(conn, table, columns, rows).await?;
    }
    Ok(())
}

/// The child rows of `r` in the tables `wanted` names, by table (always in the same order).
fn child_rows(r: &FacilityRecord, wanted: impl Fn(&str) -> bool) -> Vec<ChildRows<'static>> {
    let (id, f) = (&r.id, &r.fields);
    let mut tables: Vec<ChildRows> = Vec::new();
    if wanted("facility_addresses") {
        let rows = f
            .address
            .iter()
            .enumerate()
            .map(|(i, a)| {
                vec![
                    Param::text(id),
                    Param::Int(i as i64),
                    Param::text(&a.street),
                    Param::text(&a.city),
                    Param::text(&a.state),
                    Param::Text(a.complement.clone()),
                    Param::Text(a.zip_code.clone()),
                    Param::text(&search_key(&a.city)),
                    Param::text(&search_key(&a.state)),
                ]
            })
            .collect();
        let columns: &[&str] = &[
            "facility_id",
            "position",
            "street",
            "city",
            "state",
            "complement",
            "zip_code",
            "city_key",
            "state_key",
        ];
        tables.push(("facility_addresses", columns, rows));
    }
    if wanted("facility_users") {
        let rows = f
            .users
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let resp: Vec<&str> = l
                    .responsibilities
                    .iter()
                    .map(Responsibility::as_str)
                    .collect();
                vec![
                    Param::text(id),
                    Param::text(&l.user_id),
                    Param::Int(i as i64),
                    Param::Json(serde_json::to_string(&resp).expect("strings serialise")),
                ]
            })
            .collect();
        let columns: &[&str] = &["facility_id", "user_id", "position", "responsibilities"];
        tables.push(("facility_users", columns, rows));
    }
    if wanted("facility_radioisotopes") {
        let rows = f
            .radioisotopes
            .iter()
            .enumerate()
            .map(|(i, g)| {
                vec![
                    Param::text(id),
                    Param::text(g.name.as_str()),
                    Param::Int(i as i64),
                    Param::Real(g.quantity.mci()),
                ]
            })
            .collect();
        let columns: &[&str] = &["facility_id", "name", "position", "quantity"];
        tables.push(("facility_radioisotopes", columns, rows));
    }
    if wanted("facility_practices") {
        let rows = f
            .practices
            .iter()
            .map(|p| vec![Param::text(id), Param::text(p.as_str())])
            .collect();
        tables.push(("facility_practices", &["facility_id", "practice"], rows));
    }
    tables
}

/// The live facility already registered with this cnpj in this department, if any.
pub async fn live_duplicate(
    conn: &mut Connection,
    cnpj: &str,
    department: Department,
    except_id: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT id FROM facilities WHERE cnpj = $1 AND department = $2 AND archived_at IS NULL AND id <> $3")
        .bind(cnpj)
        .bind(department.as_str())
        .bind(except_id)
        .fetch_optional(conn)
        .await
}

/// Whether equipment, documents or QC tests refer to the facility.
pub async fn has_records(conn: &mut Connection, id: &str) -> Result<bool, sqlx::Error> {
    for table in RECORD_LINKS {
        let sql = format!(
            "SELECT COUNT(*) FROM (SELECT 1 FROM {table} WHERE facility_id = $1 LIMIT 1) x"
        );
        let n: i64 = sqlx::query_scalar(AssertSqlSafe(sql))
            .bind(id)
            .fetch_one(&mut *conn)
            .await?;
        if n > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

pub async fn is_member(
    conn: &mut Connection,
    facility_id: &str,
    user_id: &str,
) -> Result<bool, sqlx::Error> {
    let sql = "SELECT COUNT(*) FROM facility_users WHERE facility_id = $1 AND user_id = $2";
    exists(conn, sql, &[Param::text(facility_id), Param::text(user_id)]).await
}

/// Waits for the other writers of ranks (creates, archives, moves to the other department) and
/// holds them off until the transaction ends. A rank writer moves the ranks of other facilities'
/// rows, so one that also locks a facility's row must take this first: holding the row while
/// waiting for this deadlocks with the writer that holds it and moves that row's rank.
pub async fn lock_ranks(conn: &mut Connection) -> Result<(), sqlx::Error> {
    ranks::lock(conn).await
}

/// The department of the live facility `id`, read without a lock (to know whether an edit may
/// move it before locking anything).
pub async fn department(conn: &mut Connection, id: &str) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT department FROM facilities WHERE id = $1 AND archived_at IS NULL")
        .bind(id)
        .fetch_optional(conn)
        .await
}

pub async fn archive(conn: &mut Connection, id: &str, at: &str) -> Result<bool, sqlx::Error> {
    ranks::lock_around(conn, id).await?;
    let stored = ranks::of(conn, id).await?;
    let department: Option<String> = sqlx::query_scalar(
        "UPDATE facilities SET archived_at = $2, updated_at = $2, version = version + 1, live_rank = NULL, \
         department_rank = NULL WHERE id = $1 AND archived_at IS NULL RETURNING department",
    )
    .bind(id)
    .bind(Ts(at))
    .fetch_optional(&mut *conn)
    .await?;
    match department.as_deref().and_then(Department::parse) {
        Some(d) => {
            if let Some((_, overall, within)) = stored {
                ranks::leave(conn, d.as_str(), overall, within).await?;
            }
            adjust_count(conn, d, -1).await?;
            super::qc_tests::refresh_listed_facility(conn, id).await?;
            Ok(true)
        }
        None => Ok(false),
    }
}

pub async fn touch(conn: &mut Connection, id: &str, at: &str) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE facilities SET updated_at = $2, version = version + 1 WHERE id = $1")
        .bind(id)
        .bind(Ts(at))
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn set_image(
    conn: &mut Connection,
    id: &str,
    kind: ImageKind,
    content_type: &str,
    data: &[u8],
    at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM facility_images WHERE facility_id = $1 AND kind = $2")
        .bind(id)
        .bind(kind.as_str())
        .execute(&mut *conn)
        .await?;
    sqlx::query("INSERT INTO facility_images (facility_id, kind, content_type, data, updated_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(id)
        .bind(kind.as_str())
        .bind(content_type)
        .bind(data)
        .bind(Ts(at))
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn image(
    conn: &mut Connection,
    id: &str,
    kind: ImageKind,
) -> Result<Option<(String, Vec<u8>)>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT content_type, data FROM facility_images WHERE facility_id = $1 AND kind = $2",
    )
    .bind(id)
    .bind(kind.as_str())
    .fetch_optional(conn)
    .await?;
    row.map(|r| Ok((r.try_get("content_type")?, r.try_get("data")?)))
        .transpose()
}

/// The content type and size in bytes of the facility's image of `kind`, without its bytes.
pub async fn image_info(
    conn: &mut Connection,
    id: &str,
    kind: ImageKind,
) -> Result<Option<(String, i64)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT content_type, CAST(LENGTH(data) AS BIGINT) FROM facility_images \
         WHERE facility_id = $1 AND kind = $2",
    )
    .bind(id)
    .bind(kind.as_str())
    .fetch_optional(conn)
    .await
}

pub async fn remove_image(
    conn: &mut Connection,
    id: &str,
    kind: ImageKind,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query("DELETE FROM facility_images WHERE facility_id = $1 AND kind = $2")
        .bind(id)
        .bind(kind.as_str())
        .execute(conn)
        .await?;
    Ok(done.rows_affected() > 0)
}
