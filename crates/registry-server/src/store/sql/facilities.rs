//! Facility records: the facility row and its children (addresses, user links, radioisotopes,
//! practices, images), loaded for a page in a fixed number of queries.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::facility_ranks as ranks;
use super::opt;
use super::row::ts;
use super::{Connection, DbRow};
use crate::db::{placeholders, search_key};
use crate::store::facilities::*;
use crate::store::types::Ts;
use registry_core::api::{Facility, GroupRef};
use registry_core::{Department, Practice, Responsibility};
use sqlx::{AssertSqlSafe, Row};
use std::collections::HashMap;

/// Tables whose rows link a facility to records (equipment, documents, QC tests); a linked
/// facility's cnpj is locked. Archived records still count: they are history.
const RECORD_LINKS: &[&str] = &["equipment", "qc_tests", "documents"];

fn search_text(r: &FacilityRecord) -> String {
    let cities: Vec<&str> = r.address.iter().map(|a| a.city.as_str()).collect();
    search_key(&format!(
        "{} {} {} {}",
        r.name,
        r.company_name,
        r.cnpj,
        cities.join(" ")
    ))
}

pub async fn insert(conn: &mut Connection, r: &FacilityRecord) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO facilities (id, name, company_name, cnpj, telephone, department, group_id, cnen_registry, search_text, \
         version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(&r.id)
    .bind(&r.name)
    .bind(&r.company_name)
    .bind(&r.cnpj)
    .bind(&r.telephone)
    .bind(r.department.as_str())
    .bind(&r.group_id)
    .bind(&r.cnen_registry)
    .bind(search_text(r))
    .bind(r.version)
    .bind(Ts(&r.created_at))
    .bind(Ts(&r.updated_at))
    .execute(&mut *conn)
    .await?;
    insert_children(conn, r).await?;
    ranks::lock(conn).await?;
    ranks::rank_in(conn, &r.id, r.department.as_str(), true).await?;
    adjust_count(conn, r.department, 1).await
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

/// Saves the row and replaces its children.
pub async fn update(conn: &mut Connection, r: &FacilityRecord) -> Result<(), sqlx::Error> {
    let previous: String = sqlx::query_scalar("SELECT department FROM facilities WHERE id = $1")
        .bind(&r.id)
        .fetch_one(&mut *conn)
        .await?;
    let moved = previous != r.department.as_str();
    if moved {
        let previous = Department::parse(&previous)
            .ok_or_else(|| decode_err(format!("unknown department {previous}")))?;
        ranks::lock(conn).await?;
        ranks::rank_out(conn, &r.id, false).await?;
        adjust_count(conn, previous, -1).await?;
        adjust_count(conn, r.department, 1).await?;
    }
    sqlx::query(
        "UPDATE facilities SET name = $2, company_name = $3, cnpj = $4, telephone = $5, department = $6, group_id = $7, \
         cnen_registry = $8, search_text = $9, version = $10, updated_at = $11 WHERE id = $1",
    )
    .bind(&r.id)
    .bind(&r.name)
    .bind(&r.company_name)
    .bind(&r.cnpj)
    .bind(&r.telephone)
    .bind(r.department.as_str())
    .bind(&r.group_id)
    .bind(&r.cnen_registry)
    .bind(search_text(r))
    .bind(r.version)
    .bind(Ts(&r.updated_at))
    .execute(&mut *conn)
    .await?;
    for table in [
        "facility_addresses",
        "facility_users",
        "facility_radioisotopes",
        "facility_practices",
    ] {
        sqlx::query(AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE facility_id = $1"
        )))
        .bind(&r.id)
        .execute(&mut *conn)
        .await?;
    }
    if moved {
        ranks::rank_in(conn, &r.id, r.department.as_str(), false).await?;
    }
    insert_children(conn, r).await
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

async fn insert_children(conn: &mut Connection, r: &FacilityRecord) -> Result<(), sqlx::Error> {
    let addresses = r
        .address
        .iter()
        .enumerate()
        .map(|(i, a)| {
            vec![
                Param::text(&r.id),
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
    let columns = [
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
    insert_rows(conn, "facility_addresses", &columns, addresses).await?;
    let users = r
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
                Param::text(&r.id),
                Param::text(&l.user_id),
                Param::Int(i as i64),
                Param::Json(serde_json::to_string(&resp).expect("strings serialise")),
            ]
        })
        .collect();
    insert_rows(
        conn,
        "facility_users",
        &["facility_id", "user_id", "position", "responsibilities"],
        users,
    )
    .await?;
    let isotopes = r
        .radioisotopes
        .iter()
        .enumerate()
        .map(|(i, g)| {
            vec![
                Param::text(&r.id),
                Param::text(g.name.as_str()),
                Param::Int(i as i64),
                Param::Real(g.quantity.mci()),
            ]
        })
        .collect();
    insert_rows(
        conn,
        "facility_radioisotopes",
        &["facility_id", "name", "position", "quantity"],
        isotopes,
    )
    .await?;
    let practices = r
        .practices
        .iter()
        .map(|p| vec![Param::text(&r.id), Param::text(p.as_str())])
        .collect();
    insert_rows(
        conn,
        "facility_practices",
        &["facility_id", "practice"],
        practices,
    )
    .await
}

/// A stored responsibility: a main role, or a custom value (even one no longer configured).
/// The enriched facility, one row per facility: children come as JSON built by the database
/// (each backend's JSON functions: `dialect::FACILITY_CHILDREN`), so a page of facilities is a
/// single query on either backend.
fn select_sql(filter: &str, tail: &str) -> String {
    let children = super::dialect::FACILITY_CHILDREN;
    format!(
        "SELECT f.id, f.name, f.company_name, f.cnpj, f.telephone, f.department, f.group_id, g.name AS group_name, \
         f.cnen_registry, f.version, f.created_at, f.updated_at, {children} \
         FROM facilities f LEFT JOIN facility_groups g ON g.id = f.group_id WHERE {filter} {tail}"
    )
}

fn from_json<T: serde::de::DeserializeOwned>(r: &DbRow, col: &str) -> Result<T, sqlx::Error> {
    let text: Option<String> = r.try_get(col)?;
    serde_json::from_str(text.as_deref().unwrap_or("[]"))
        .map_err(|e| decode_err(format!("{col}: {e}")))
}

fn facility_from_row(r: &DbRow) -> Result<Facility, sqlx::Error> {
    let id: String = r.try_get("id")?;
    let department: String = r.try_get("department")?;
    let group_id: Option<String> = r.try_get("group_id")?;
    let mut practices: Vec<Practice> = from_json(r, "practices_json")?;
    practices.sort();
    let kinds = opt(r, "image_kinds")?.unwrap_or_default();
    let image = |kind: ImageKind| {
        kinds
            .split(',')
            .any(|k| k == kind.as_str())
            .then(|| format!("/api/facility/{id}/{}", kind.as_str()))
    };
    Ok(Facility {
        name: r.try_get("name")?,
        company_name: r.try_get("company_name")?,
        cnpj: r.try_get("cnpj")?,
        telephone: r.try_get("telephone")?,
        department: Department::parse(&department)
            .ok_or_else(|| decode_err(format!("unknown department {department}")))?,
        group: match group_id {
            Some(gid) => Some(GroupRef {
                id: gid,
                name: opt(r, "group_name")?.unwrap_or_default(),
            }),
            None => None,
        },
        address: from_json(r, "address_json")?,
        cnen_registry: opt(r, "cnen_registry")?,
        practices,
        radioisotopes: from_json(r, "isotopes_json")?,
        users: from_json(r, "users_json")?,
        logo: image(ImageKind::Logo),
        background_image: image(ImageKind::Background),
        version: r.try_get("version")?,
        created_at: ts(r, "created_at")?,
        updated_at: ts(r, "updated_at")?,
        id,
    })
}

/// The query of [`views`] for `n` ids (`$1`…`$n`).
pub(crate) fn views_sql(n: usize) -> String {
    let filter = format!("f.archived_at IS NULL AND f.id IN ({})", placeholders(1, n));
    select_sql(&filter, "")
}

/// Live facilities with these ids, enriched, in the order of `ids` (missing ones are skipped).
pub async fn views(conn: &mut Connection, ids: &[String]) -> Result<Vec<Facility>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut q = sqlx::query(AssertSqlSafe(views_sql(ids.len())));
    for id in ids {
        q = q.bind(id.as_str());
    }
    let rows = q.fetch_all(conn).await?;
    let mut by_id: HashMap<String, Facility> = rows
        .iter()
        .map(|r| facility_from_row(r).map(|f| (f.id.clone(), f)))
        .collect::<Result<_, _>>()?;
    Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
}

pub async fn view(conn: &mut Connection, id: &str) -> Result<Option<Facility>, sqlx::Error> {
    Ok(views(conn, &[id.to_owned()]).await?.pop())
}

/// A page of live facilities, newest first, with the filters of product.md §2.
pub async fn list(
    conn: &mut Connection,
    filter: &FacilityFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    let mut clauses = vec!["f.archived_at IS NULL".to_owned()];
    let mut binds: Vec<String> = Vec::new();
    let mut add = |clause: &str, value: String| {
        binds.push(value);
        clauses.push(clause.replace("$?", &format!("${}", binds.len())));
    };
    if let Some(d) = &filter.department {
        add("f.department = $?", d.clone());
    }
    let linked = "EXISTS (SELECT 1 FROM facility_users m WHERE m.facility_id = f.id AND m.user_id = $?)";
    for user in [&filter.member, &filter.user_id].into_iter().flatten() {
        add(linked, user.clone());
    }
    if let Some(q) = &filter.q {
        let (clause, value) = super::dialect::facility_search(q);
        add(clause, value);
    }
    let address = |key| {
        format!("EXISTS (SELECT 1 FROM facility_addresses a WHERE a.facility_id = f.id AND a.{key} = $?)")
    };
    if let Some(state) = &filter.state {
        add(&address("state_key"), search_key(state));
    }
    if let Some(city) = &filter.city {
        add(&address("city_key"), search_key(city));
    }
    if let Some(group) = &filter.group_id {
        add("f.group_id = $?", group.clone());
    }
    if let Some(iso) = &filter.radioisotope {
        add(
            "EXISTS (SELECT 1 FROM facility_radioisotopes r WHERE r.facility_id = f.id AND r.name = $?)",
            iso.clone(),
        );
    }
    if let Some(practice) = &filter.practice {
        add(
            "EXISTS (SELECT 1 FROM facility_practices p WHERE p.facility_id = f.id AND p.practice = $?)",
            practice.clone(),
        );
    }
    let department_given = filter.department.is_some();
    let only_department = clauses.len() == 1 + usize::from(department_given);
    let filter = clauses.join(" AND ");
    let total: i64 = if only_department {
        // Kept up to date by every write: no need to count the rows.
        let sql = if department_given {
            "SELECT live FROM facility_counts WHERE department = $1"
        } else {
            "SELECT CAST(SUM(live) AS BIGINT) FROM facility_counts"
        };
        let mut q = sqlx::query_scalar::<_, Option<i64>>(sql);
        for b in &binds {
            q = q.bind(b.as_str());
        }
        q.fetch_optional(&mut *conn).await?.flatten().unwrap_or(0)
    } else {
        let sql = format!("SELECT COUNT(*) FROM facilities f WHERE {filter}");
        let mut q = sqlx::query_scalar(AssertSqlSafe(sql));
        for b in &binds {
            q = q.bind(b.as_str());
        }
        q.fetch_one(&mut *conn).await?
    };
    if offset >= total {
        return Ok((Vec::new(), total));
    }
    if only_department {
        // The whole list or a department's: the page is a range of the kept ranks.
        let department = binds.first().map(String::as_str);
        let ids = ranks::page_ids(conn, department, total, limit, offset).await?;
        return Ok((views(conn, &ids).await?, total));
    }
    // A filtered list: a page in the older half is read from the other end of the index, so a
    // deep page costs about what the first one does.
    let from_end = offset < total && offset > total / 2;
    let (order, limit, offset) = if from_end {
        let rest = total - offset - limit;
        (
            "ASC",
            if rest < 0 { limit + rest } else { limit },
            rest.max(0),
        )
    } else {
        ("DESC", limit, offset)
    };
    // The page's ids first, through the narrow index (id order, filters); then only those
    // facilities are built with their children. Building the children in the same query made
    // PostgreSQL compute them for every row that OFFSET skipped.
    let n = binds.len();
    let sql = format!(
        "SELECT f.id FROM facilities f WHERE {filter} ORDER BY f.id {order} LIMIT ${} OFFSET ${}",
        n + 1,
        n + 2
    );
    let mut q = sqlx::query_scalar(AssertSqlSafe(sql));
    for b in &binds {
        q = q.bind(b.as_str());
    }
    let mut ids: Vec<String> = q.bind(limit).bind(offset).fetch_all(&mut *conn).await?;
    if from_end {
        ids.reverse();
    }
    Ok((views(conn, &ids).await?, total))
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
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM facility_users WHERE facility_id = $1 AND user_id = $2",
    )
    .bind(facility_id)
    .bind(user_id)
    .fetch_one(conn)
    .await?;
    Ok(n > 0)
}

pub async fn archive(conn: &mut Connection, id: &str, at: &str) -> Result<bool, sqlx::Error> {
    ranks::lock(conn).await?;
    ranks::rank_out(conn, id, true).await?;
    let department: Option<String> = sqlx::query_scalar(
        "UPDATE facilities SET archived_at = $2, updated_at = $2, version = version + 1 WHERE id = $1 AND archived_at IS NULL RETURNING department",
    )
    .bind(id)
    .bind(Ts(at))
    .fetch_optional(&mut *conn)
    .await?;
    match department.as_deref().and_then(Department::parse) {
        Some(d) => {
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
