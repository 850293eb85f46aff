//! Reading facilities: the enriched view (the row with its addresses, user links, radioisotopes,
//! practices and images, built by the database as JSON) of one facility or a page, and the lists
//! with the filters of product.md §2 (the whole and per-department lists by kept ranks:
//! `facility_ranks.rs`).
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::facility_ranks as ranks;
use super::opt;
use super::row::ts;
use super::{Connection, DbRow};
use crate::db::{placeholders, search_key};
use crate::store::model::facilities::*;
use registry_core::api::{Facility, GroupRef};
use registry_core::{Department, Practice};
use sqlx::{AssertSqlSafe, Row};
use std::collections::HashMap;

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
    if only_department {
        // The whole list or a department's: the total is kept by every write, and the page is a
        // range of the kept ranks.
        let sql = if department_given {
            "SELECT live FROM facility_counts WHERE department = $1"
        } else {
            "SELECT CAST(SUM(live) AS BIGINT) FROM facility_counts"
        };
        let mut q = sqlx::query_scalar::<_, Option<i64>>(sql);
        for b in &binds {
            q = q.bind(b.as_str());
        }
        let total = q.fetch_optional(&mut *conn).await?.flatten().unwrap_or(0);
        if offset >= total {
            return Ok((Vec::new(), total));
        }
        let department = binds.first().map(String::as_str);
        let ids = ranks::page_ids(conn, department, total, limit, offset).await?;
        return Ok((views(conn, &ids).await?, total));
    }
    // A filtered list: the page's ids and the filtered total in one statement, so the filter (a
    // search through the trigram index, say) is evaluated once; then only those facilities are
    // built with their children (building them in the same query made PostgreSQL compute them
    // for every row that OFFSET skipped). Past the last page no row carries the total: it is
    // counted alone.
    let n = binds.len();
    let sql = format!(
        "SELECT f.id, COUNT(*) OVER () AS total FROM facilities f WHERE {filter} \
         ORDER BY f.id DESC LIMIT ${} OFFSET ${}",
        n + 1,
        n + 2
    );
    let mut q = sqlx::query(AssertSqlSafe(sql));
    for b in &binds {
        q = q.bind(b.as_str());
    }
    let rows = q.bind(limit).bind(offset).fetch_all(&mut *conn).await?;
    let Some(first) = rows.first() else {
        let sql = format!("SELECT COUNT(*) FROM facilities f WHERE {filter}");
        let mut q = sqlx::query_scalar(AssertSqlSafe(sql));
        for b in &binds {
            q = q.bind(b.as_str());
        }
        return Ok((Vec::new(), q.fetch_one(&mut *conn).await?));
    };
    let total: i64 = first.try_get("total")?;
    let ids: Vec<String> = rows
        .iter()
        .map(|r| r.try_get("id"))
        .collect::<Result<_, _>>()?;
    Ok((views(conn, &ids).await?, total))
}

