//! User records.
//!
//! Compiled into each backend (`super` is `store::sqlite` or `store::postgres`).

use super::Connection;
use super::row::{exists, fetch_by, page};
use crate::db::contains_pattern;
use crate::store::types::{Columns, Day, JsonText, Param, Stamp, Ts};
use crate::store::model::users::*;
use registry_core::Role;
use registry_core::api::{Licences, User};
use registry_core::facility::UserState;
use sqlx::{AssertSqlSafe, Row};
use std::collections::BTreeMap;

const COLUMNS: &str = "id, name, email, telephone, cpf, roles, active, an_license_number, an_license_validity, \
    fm_license_number, fm_license_validity, password_hash, token_version, created_at, updated_at";

pub(crate) fn user_from_row(r: &impl Columns) -> Result<UserRow, sqlx::Error> {
    Ok(UserRow {
        profile: User {
            id: r.text("id")?,
            name: r.text("name")?,
            email: r.text("email")?,
            telephone: r.text_opt("telephone")?,
            cpf: r.text_opt("cpf")?,
            roles: serde_json::from_str(&r.json("roles")?)
                .map_err(|e| sqlx::Error::Decode(e.into()))?,
            active: r.boolean("active")?,
            licences: Licences {
                an_number: r.text_opt("an_license_number")?,
                an_validity: r.day_opt("an_license_validity")?,
                fm_number: r.text_opt("fm_license_number")?,
                fm_validity: r.day_opt("fm_license_validity")?,
            },
            created_at: r.stamp("created_at")?,
            updated_at: r.stamp("updated_at")?,
        },
        password_hash: r.text("password_hash")?,
        token_version: r.int("token_version")?,
    })
}

/// The query of [`by_id`] (`$1`: the id).
pub(crate) fn by_id_sql() -> String {
    format!("SELECT {COLUMNS} FROM users WHERE id = $1")
}

pub async fn by_id(conn: &mut Connection, id: &str) -> Result<Option<UserRow>, sqlx::Error> {
    fetch_by(conn, by_id_sql(), id, user_from_row).await
}

pub async fn by_email(conn: &mut Connection, email: &str) -> Result<Option<UserRow>, sqlx::Error> {
    let sql = format!("SELECT {COLUMNS} FROM users WHERE email = $1");
    fetch_by(conn, sql, email, user_from_row).await
}

pub async fn count(conn: &mut Connection) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM users")
        .fetch_one(conn)
        .await
}

pub async fn email_taken(
    conn: &mut Connection,
    email: &str,
    except_id: &str,
) -> Result<bool, sqlx::Error> {
    let sql = "SELECT COUNT(*) FROM users WHERE email = $1 AND id <> $2";
    exists(conn, sql, &[Param::text(email), Param::text(except_id)]).await
}

/// What a search finds the user by: name and e-mail, each apart (`text::search_text`).
pub(crate) fn search_text(name: &str, email: &str) -> String {
    registry_core::text::search_text([name, email])
}

/// Inserts or replaces the whole row.
pub async fn save(conn: &mut Connection, u: &UserRow, insert: bool) -> Result<(), sqlx::Error> {
    let roles = serde_json::to_string(&u.profile.roles).expect("roles serialise");
    let search = search_text(&u.profile.name, &u.profile.email);
    let sql = if insert {
        "INSERT INTO users (id, name, email, telephone, cpf, roles, active, an_license_number, an_license_validity, \
         fm_license_number, fm_license_validity, password_hash, token_version, search_text, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
    } else {
        "UPDATE users SET name = $2, email = $3, telephone = $4, cpf = $5, roles = $6, active = $7, an_license_number = $8, \
         an_license_validity = $9, fm_license_number = $10, fm_license_validity = $11, password_hash = $12, \
         token_version = $13, search_text = $14, created_at = $15, updated_at = $16 WHERE id = $1"
    };
    sqlx::query(sql)
        .bind(&u.profile.id)
        .bind(&u.profile.name)
        .bind(&u.profile.email)
        .bind(&u.profile.telephone)
        .bind(&u.profile.cpf)
        .bind(JsonText(&roles))
        .bind(u.profile.active)
        .bind(&u.profile.licences.an_number)
        .bind(u.profile.licences.an_validity.as_deref().map(Day))
        .bind(&u.profile.licences.fm_number)
        .bind(u.profile.licences.fm_validity.as_deref().map(Day))
        .bind(&u.password_hash)
        .bind(u.token_version)
        .bind(search)
        .bind(Ts(&u.profile.created_at))
        .bind(Ts(&u.profile.updated_at))
        .execute(conn)
        .await?;
    Ok(())
}

/// Users, newest first, filtered by `q` (name or e-mail), `role` and `active`.
pub async fn list(
    conn: &mut Connection,
    filter: &UserFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<UserRow>, i64), sqlx::Error> {
    let mut clauses = vec!["1 = 1".to_owned()];
    let mut binds: Vec<Param> = Vec::new();
    if let Some(q) = &filter.q {
        binds.push(Param::text(&contains_pattern(q)));
        clauses.push(format!("search_text LIKE ${} ESCAPE '\\'", binds.len()));
    }
    if let Some(role) = &filter.role {
        binds.push(Param::text(&format!("%\"{}\"%", role.replace('"', ""))));
        clauses.push(format!("CAST(roles AS TEXT) LIKE ${}", binds.len()));
    }
    if let Some(active) = filter.active {
        clauses.push(format!("active = {}", if active { "TRUE" } else { "FALSE" }));
    }
    let filter = clauses.join(" AND ");
    page(
        conn,
        format!("SELECT COUNT(*) FROM users WHERE {filter}"),
        format!("SELECT {COLUMNS} FROM users WHERE {filter} ORDER BY id DESC"),
        binds,
        limit,
        offset,
        user_from_row,
    )
    .await
}

/// Whether each of `ids` exists and is active (absent from the map when it does not exist).
pub async fn states(
    conn: &mut Connection,
    ids: &[&str],
) -> Result<BTreeMap<String, UserState>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(BTreeMap::new());
    }
    let (list, binds) = super::dialect::id_list(ids);
    let sql = format!("SELECT id, active FROM users WHERE id IN ({list})");
    let mut q = sqlx::query(AssertSqlSafe(sql));
    for bind in binds {
        q = q.bind(bind);
    }
    q.fetch_all(conn)
        .await?
        .iter()
        .map(|r| {
            let state = if r.try_get("active")? {
                UserState::Active
            } else {
                UserState::Inactive
            };
            Ok((r.try_get("id")?, state))
        })
        .collect()
}

/// Active users holding a role, counted after waiting for every other transaction that asked
/// (until they end): two transactions that each take the role from a different holder cannot
/// both count the other still holding it.
pub async fn count_active_with_role(conn: &mut Connection, role: Role) -> Result<i64, sqlx::Error> {
    super::dialect::serialise(conn, crate::store::Writers::RoleHolders).await?;
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM users WHERE active = TRUE AND CAST(roles AS TEXT) LIKE $1",
    )
    .bind(format!("%\"{}\"%", role.as_str()))
    .fetch_one(conn)
    .await
}

/// Reserves a password check for `email` before it is made, so that parallel guesses cannot
/// all pass one reading of the count: `Ok(None)` when the check may go ahead (it stays counted
/// until `clear_login_failures`), or `Ok(Some(seconds))` to wait. Must run in its own
/// transaction: the upsert locks the row (PostgreSQL) or the database (SQLite) until commit,
/// so a concurrent reservation sees this one.
pub async fn reserve_login(
    tx: &mut Connection,
    email: &str,
    rule: &LoginRule,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Option<u64>, sqlx::Error> {
    let now = crate::db::timestamp(at);
    let forgotten_before = crate::db::timestamp(at - rule.forget_after);
    let reserved: Option<i64> = sqlx::query_scalar(
        "INSERT INTO login_failures (email, failures, window_start) VALUES ($1, 1, $2) \
         ON CONFLICT (email) DO UPDATE SET \
         failures = CASE WHEN login_failures.window_start < $3 THEN 1 ELSE login_failures.failures + 1 END, \
         window_start = $2 \
         WHERE login_failures.failures < $4 OR login_failures.window_start <= $2 \
         RETURNING failures",
    )
    .bind(email)
    .bind(Ts(&now))
    .bind(Ts(&forgotten_before))
    .bind(rule.free)
    .fetch_optional(&mut *tx)
    .await?;
    match reserved {
        Some(n) => {
            let wait = rule.wait_after(n);
            if !wait.is_zero() {
                let next =
                    at + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::days(1));
                sqlx::query("UPDATE login_failures SET window_start = $2 WHERE email = $1")
                    .bind(email)
                    .bind(Ts(&crate::db::timestamp(next)))
                    .execute(&mut *tx)
                    .await?;
            }
            Ok(None)
        }
        None => {
            let next: Stamp =
                sqlx::query_scalar("SELECT window_start FROM login_failures WHERE email = $1")
                    .bind(email)
                    .fetch_one(&mut *tx)
                    .await?;
            let wait = chrono::DateTime::parse_from_rfc3339(&next.0)
                .map(|next| (next.with_timezone(&chrono::Utc) - at).num_milliseconds())
                .unwrap_or(1000);
            Ok(Some((wait.max(1) as u64).div_ceil(1000)))
        }
    }
}

/// Forgets the failed logins of `email` (a success, a new password, an Administrator's unlock).
pub async fn clear_login_failures(conn: &mut Connection, email: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM login_failures WHERE email = $1")
        .bind(email)
        .execute(conn)
        .await?;
    Ok(())
}

/// Drops the counts that `reserve_login` would start again from zero anyway (addresses tried
/// once and never again), so guessed addresses do not pile up.
pub async fn forget_old_login_failures(
    conn: &mut Connection,
    before: chrono::DateTime<chrono::Utc>,
) -> Result<u64, sqlx::Error> {
    Ok(
        sqlx::query("DELETE FROM login_failures WHERE window_start < $1")
            .bind(Ts(&crate::db::timestamp(before)))
            .execute(conn)
            .await?
            .rows_affected(),
    )
}

/// Uses up a password-recovery token: the user it was issued to, if it is unused and not expired
/// at `now` (it cannot be used again either way).
pub async fn take_reset(
    conn: &mut Connection,
    token_hash: &str,
    now: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at >= $2 \
         RETURNING user_id",
    )
    .bind(token_hash)
    .bind(Ts(now))
    .fetch_optional(conn)
    .await
}

/// The user a password-recovery token was issued to, while it is unused and not expired at
/// `now`; read only (the caller locks the user before [`take_reset`] uses the token up).
pub async fn reset_owner(
    conn: &mut Connection,
    token_hash: &str,
    now: &str,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT user_id FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at >= $2",
    )
    .bind(token_hash)
    .bind(Ts(now))
    .fetch_optional(conn)
    .await
}

/// Stores a password-recovery token (its hash) for `user_id`, valid until `expires_at`.
pub async fn add_reset(
    conn: &mut Connection,
    token_hash: &str,
    user_id: &str,
    expires_at: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ($1, $2, $3)",
    )
    .bind(token_hash)
    .bind(user_id)
    .bind(Ts(expires_at))
    .execute(conn)
    .await?;
    Ok(())
}

/// Uses up every recovery code of `user_id` not used yet.
pub async fn drop_resets(conn: &mut Connection, user_id: &str, now: &str) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL")
        .bind(user_id)
        .bind(Ts(now))
        .execute(conn)
        .await?;
    Ok(())
}
