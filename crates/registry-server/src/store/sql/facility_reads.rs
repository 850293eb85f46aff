//! Reading facilities: the enriched view (the row with its addresses, user links, radioisotopes,
//! practices and images, kept by the database as JSON) of one facility or a page, and the lists
//! with the filters of product.md §2 (the whole and per-department lists by kept ranks:
//! `facility_ranks.rs`).
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::facility_ranks as ranks;
use super::Connection;
use crate::store::types::Columns;
use crate::db::search_key;
use registry_core::text::state_keys;
use crate::store::model::facilities::*;
use registry_core::api::{Facility, GroupRef};
use registry_core::{Department, Practice};
use sqlx::AssertSqlSafe;
use std::collections::HashMap;

/// The enriched facility, one row per facility: its child lists come as the JSON kept on its row
/// by the database's triggers (`dialect::FACILITY_CHILDREN`; PostgreSQL migration 0006, SQLite
/// 0011), so a page of facilities is a single query reading one row each on either backend.
fn select_sql(filter: &str, tail: &str) -> String {
    format!(
        "SELECT {} FROM facilities f LEFT JOIN facility_groups g ON g.id = f.group_id WHERE {filter} {tail}",
        view_columns()
    )
}

/// The columns of a facility's view, of `facilities f` and `facility_groups g`
/// ([`facility_from_row`]).
pub(crate) fn view_columns() -> String {
    let children = super::dialect::FACILITY_CHILDREN;
    format!(
        "f.id, f.name, f.company_name, f.cnpj, f.telephone, f.department, f.group_id, g.name AS group_name, \
         f.cnen_registry, f.version, f.created_at, f.updated_at, {children}"
    )
}

fn from_json<T: serde::de::DeserializeOwned>(r: &impl Columns, col: &str) -> Result<T, sqlx::Error> {
    let text = r.text_opt(col)?;
    serde_json::from_str(text.as_deref().unwrap_or("[]"))
        .map_err(|e| decode_err(format!("{col}: {e}")))
}

/// One row of [`views_query`], from either driver.
pub(crate) fn facility_from_row(r: &impl Columns) -> Result<Facility, sqlx::Error> {
    let id = r.text("id")?;
    let department = r.text("department")?;
    let mut practices: Vec<Practice> = from_json(r, "practices_json")?;
    practices.sort();
    let kinds = r.text_opt("image_kinds")?.unwrap_or_default();
    let image = |kind: ImageKind| {
        kinds
            .split(',')
            .any(|k| k == kind.as_str())
            .then(|| format!("/api/facility/{id}/{}", kind.as_str()))
    };
    Ok(Facility {
        name: r.text("name")?,
        company_name: r.text("company_name")?,
        cnpj: r.text("cnpj")?,
        telephone: r.text("telephone")?,
        department: Department::parse(&department)
            .ok_or_else(|| decode_err(format!("unknown department {department}")))?,
        group: match r.text_opt("group_id")? {
            Some(gid) => Some(GroupRef {
                id: gid,
                name: r.text_opt("group_name")?.unwrap_or_default(),
            }),
            None => None,
        },
        address: from_json(r, "address_json")?,
        cnen_registry: r.text_opt("cnen_registry")?,
        practices,
        radioisotopes: from_json(r, "isotopes_json")?,
        users: from_json(r, "users_json")?,
        logo: image(ImageKind::Logo),
        background_image: image(ImageKind::Background),
        version: r.int("version")?,
        created_at: r.stamp("created_at")?,
        updated_at: r.stamp("updated_at")?,
        id,
    })
}

/// A page of the whole list or a department's, with its total, in one statement (each round
/// trip to PostgreSQL costs about as much as the work of a page): the kept total, the page's
/// ranks from it (`total - offset - limit + 1 ..= total - offset`, newest first, ranks following
/// ids) and the views of the facilities holding them. `$1` is the department (NULL for the whole
/// list), `$2` the offset, `$3` the limit: SQLite numbers `$n` parameters in the order they first
/// appear, so they appear in that order. The total comes on every row, and alone (with no
/// facility) past the last page. `MATERIALIZED`: read once, then the rank index is scanned for
/// the range (PostgreSQL otherwise inlined the total three times into the index condition); the
/// joins are not nested, or SQLite built the whole join of facilities and groups first.
pub(crate) fn ranked_page_sql(department: Option<&str>) -> String {
    let total = ListPlan::total_sql(department);
    let (rows, column) = ranks::ranking_sql(department);
    let page = format!(
        "{rows} AND f.{column} BETWEEN CASE WHEN t.total - $2 - $3 + 1 < 1 THEN 1 ELSE t.total - $2 - $3 + 1 END \
         AND t.total - $2"
    );
    let columns = view_columns();
    format!(
        "WITH t AS MATERIALIZED (SELECT COALESCE(({total}), 0) AS total) \
         SELECT {columns}, t.total AS total FROM t \
         LEFT JOIN facilities f ON {page} LEFT JOIN facility_groups g ON g.id = f.group_id \
         ORDER BY f.{column} DESC"
    )
}

/// A filtered page with its views in one statement: [`ListPlan::page_sql`]'s ids and total,
/// then the views of those facilities. One statement reads one snapshot: with the views read by a
/// second one, an edit committed in between (a `Cliente` unlinked, a facility moved to the other
/// department) showed a facility the filter no longer selects (audit of stop 36).
pub(crate) fn filtered_page_sql(matching: &str, binds: usize) -> String {
    let page = ListPlan::page_sql(matching, binds);
    let columns = view_columns();
    format!(
        "WITH page AS ({page}) SELECT {columns}, page.total AS total FROM page \
         JOIN facilities f ON f.id = page.id LEFT JOIN facility_groups g ON g.id = f.group_id \
         ORDER BY f.id DESC"
    )
}

/// One row of [`ranked_page_sql`] or [`filtered_page_sql`]: its facility (none on the row of a
/// ranked page past the last) and the total.
pub(crate) fn ranked_row(r: &impl Columns) -> Result<(Option<Facility>, i64), sqlx::Error> {
    let facility = match r.text_opt("id")? {
        Some(_) => Some(facility_from_row(r)?),
        None => None,
    };
    Ok((facility, r.int("total")?))
}

/// The page and total of the rows of [`ranked_page_sql`] or [`filtered_page_sql`] (none: 0).
pub(crate) fn ranked_page(rows: Vec<(Option<Facility>, i64)>) -> (Vec<Facility>, i64) {
    let total = rows.first().map_or(0, |(_, total)| *total);
    (rows.into_iter().filter_map(|(f, _)| f).collect(), total)
}

/// The query of [`views`] for `ids`, and what it binds (`dialect::id_list`).
pub(crate) fn views_query(ids: &[String]) -> (String, Vec<String>) {
    let (list, binds) = super::dialect::id_list(ids);
    let filter = format!("f.archived_at IS NULL AND f.id IN ({list})");
    (select_sql(&filter, ""), binds)
}

/// The facilities `found`, in the order of `ids` (those not found are skipped).
pub(crate) fn in_order(ids: &[String], found: Vec<Facility>) -> Vec<Facility> {
    let mut by_id: HashMap<String, Facility> =
        found.into_iter().map(|f| (f.id.clone(), f)).collect();
    ids.iter().filter_map(|id| by_id.remove(id)).collect()
}

/// Live facilities with these ids, enriched, in the order of `ids` (missing ones are skipped).
pub async fn views(conn: &mut Connection, ids: &[String]) -> Result<Vec<Facility>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let (sql, binds) = views_query(ids);
    let mut q = sqlx::query(AssertSqlSafe(sql));
    for bind in binds {
        q = q.bind(bind);
    }
    let rows = q.fetch_all(conn).await?;
    let found = rows.iter().map(facility_from_row).collect::<Result<_, _>>()?;
    Ok(in_order(ids, found))
}

/// How a page of the facility list is read: the SQL of each step, the same for either driver.
pub(crate) enum ListPlan {
    /// The whole list or a department's: the total is kept by every write (`total_sql`, with
    /// `$1` the department when there is one), and the page is a range of the kept ranks, all in
    /// one statement (`ranked_page_sql`).
    Ranked { department: Option<String> },
    /// A filtered list: `matching` is the `FROM … WHERE …` of the matching facilities (alias `f`:
    /// `facilities f WHERE …`, or what a search alone reads, `dialect::search_alone`), `$1`…`$n`
    /// its binds. `page_sql` gives the page's ids and the filtered total in one statement (the
    /// binds, then limit and offset), so the filter (a search through the trigram index, say)
    /// is evaluated once; past the last page no row carries the total, and `count_sql` counts
    /// it alone. Only the page's facilities are then built with their children (building them
    /// in the same query made PostgreSQL compute them for every row that OFFSET skipped).
    Filtered { matching: String, binds: Vec<String> },
}

impl ListPlan {
    /// The plan for `filter` (product.md §2); `rare`: the search term's trigrams for the index to
    /// read (empty: all of them; see `dialect::facility_search`).
    pub(crate) fn new(filter: &FacilityFilter, rare: &[String]) -> ListPlan {
        let mut binds: Vec<String> = Vec::new();
        if let Some(q) = filter.q.as_deref().filter(|_| filter.is_search_alone())
            && let Some((matching, values)) = super::dialect::search_alone(q, rare)
        {
            let matching = numbered(&matching, values, &mut binds);
            return ListPlan::Filtered { matching, binds };
        }
        let mut clauses = vec!["f.archived_at IS NULL".to_owned()];
        let mut add = |clause: &str, values| clauses.push(numbered(clause, values, &mut binds));
        if let Some(d) = &filter.department {
            add("f.department = $?", vec![d.clone()]);
        }
        let linked = "EXISTS (SELECT 1 FROM facility_users m WHERE m.facility_id = f.id AND m.user_id = $?)";
        for user in [&filter.member, &filter.user_id].into_iter().flatten() {
            add(linked, vec![user.clone()]);
        }
        if let Some(q) = &filter.q {
            let (clause, values) = super::dialect::facility_search(q, rare);
            add(&clause, values);
        }
        let address = |key, n| {
            format!(
                "EXISTS (SELECT 1 FROM facility_addresses a WHERE a.facility_id = f.id AND a.{key} IN ({}))",
                vec!["$?"; n].join(", ")
            )
        };
        if let Some(state) = &filter.state {
            // `PE` and `Pernambuco` find each other (spec §2.2: abbreviation or full name).
            let keys = state_keys(state);
            add(&address("state_key", keys.len()), keys);
        }
        if let Some(city) = &filter.city {
            add(&address("city_key", 1), vec![search_key(city)]);
        }
        if let Some(group) = &filter.group_id {
            add("f.group_id = $?", vec![group.clone()]);
        }
        if let Some(iso) = &filter.radioisotope {
            add(
                "EXISTS (SELECT 1 FROM facility_radioisotopes r WHERE r.facility_id = f.id AND r.name = $?)",
                vec![iso.clone()],
            );
        }
        if let Some(practice) = &filter.practice {
            add(
                "EXISTS (SELECT 1 FROM facility_practices p WHERE p.facility_id = f.id AND p.practice = $?)",
                vec![practice.clone()],
            );
        }
        if clauses.len() == 1 + usize::from(filter.department.is_some()) {
            ListPlan::Ranked {
                department: filter.department.clone(),
            }
        } else {
            ListPlan::Filtered {
                matching: format!("facilities f WHERE {}", clauses.join(" AND ")),
                binds,
            }
        }
    }

    /// The kept total of a ranked list (`$1`: the department, when given).
    pub(crate) fn total_sql(department: Option<&str>) -> &'static str {
        match department {
            Some(_) => "SELECT live FROM facility_counts WHERE department = $1",
            None => "SELECT CAST(SUM(live) AS BIGINT) FROM facility_counts",
        }
    }

    /// A filtered page's ids and the filtered total (`total`), newest first
    /// (`dialect::filtered_page`).
    pub(crate) fn page_sql(matching: &str, binds: usize) -> String {
        super::dialect::filtered_page(matching, binds + 1, binds + 2)
    }

    pub(crate) fn count_sql(matching: &str) -> String {
        format!("SELECT COUNT(*) FROM {matching}")
    }
}

/// `clause` with each `$?` numbered for the next of `values`, which join `binds`.
fn numbered(clause: &str, values: Vec<String>, binds: &mut Vec<String>) -> String {
    let mut clause = clause.to_owned();
    for value in values {
        binds.push(value);
        clause = clause.replacen("$?", &format!("${}", binds.len()), 1);
    }
    clause
}

/// A page of live facilities, newest first, with the filters of product.md §2; `rare`: the
/// search term's trigrams for the index to read (`ListPlan::new`).
pub async fn list(
    conn: &mut Connection,
    filter: &FacilityFilter,
    rare: &[String],
    limit: i64,
    offset: i64,
) -> Result<(Vec<Facility>, i64), sqlx::Error> {
    match ListPlan::new(filter, rare) {
        ListPlan::Ranked { department } => {
            let rows = sqlx::query(AssertSqlSafe(ranked_page_sql(department.as_deref())))
                .bind(department.as_deref())
                .bind(offset)
                .bind(limit)
                .fetch_all(&mut *conn)
                .await?;
            let rows = rows.iter().map(ranked_row).collect::<Result<Vec<_>, _>>()?;
            Ok(ranked_page(rows))
        }
        ListPlan::Filtered { matching, binds } => {
            let mut q = sqlx::query(AssertSqlSafe(filtered_page_sql(&matching, binds.len())));
            for b in &binds {
                q = q.bind(b.as_str());
            }
            let rows = q.bind(limit).bind(offset).fetch_all(&mut *conn).await?;
            // An empty first page is a total of 0 by the same reading (a count read after it
            // could see a write committed in between: a total of 1 over an empty list).
            if rows.is_empty() && offset == 0 {
                return Ok((Vec::new(), 0));
            }
            if rows.is_empty() {
                let mut q = sqlx::query_scalar(AssertSqlSafe(ListPlan::count_sql(&matching)));
                for b in &binds {
                    q = q.bind(b.as_str());
                }
                return Ok((Vec::new(), q.fetch_one(&mut *conn).await?));
            }
            let rows = rows.iter().map(ranked_row).collect::<Result<Vec<_>, _>>()?;
            Ok(ranked_page(rows))
        }
    }
}
