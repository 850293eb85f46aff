//! Authentication endpoints (spec §4.1): login, register, edit, exclude, change password and
//! password recovery, with the grant rules of product.md §3 and a failed-login limit. One file a
//! concern; this one routes and holds what they share.

mod account;
mod login;
mod password;
mod register;

use crate::auth::{TokenSubject, issue_token};
use crate::db::Conn;
use crate::error::{ApiError, Result};
use crate::routes::describe::{Routes, route, routes};
use crate::state::AppState;
use crate::store::audit;
use crate::store::users::{self, UserRow};
use registry_core::audit::Action;
use registry_core::payload::{MAX_PASSWORD, text_limit};
use registry_core::values::password_problem;
use registry_core::{FieldCode, FieldErrors};
use serde_json::Value;

pub fn routes() -> Routes {
    routes![
        login::login,
        register::register,
        account::edit,
        account::exclude,
        password::password_recover
    ]
    .route(route!(password::change_password).also_at("/api/change_password"))
}

/// The non-empty strings `keys` of an authentication body, or a field error for every one that
/// is missing or not a string, and for a `newPassword` too weak (all at once). `v` is an object.
fn required_strs<'a, const N: usize>(v: &'a Value, keys: [&str; N]) -> Result<[&'a str; N]> {
    let mut errs = FieldErrors::default();
    let found = keys.map(|key| match v.get(key) {
        Some(Value::String(s)) if !s.is_empty() => {
            if key == "newPassword"
                && let Some(problem) = password_problem(s)
            {
                errs.push(key, FieldCode::WeakPassword, problem);
            } else if text_limit(key) == MAX_PASSWORD && s.chars().count() > MAX_PASSWORD {
                // A password to check (login, the current one) is bounded like a new one, so
                // that hashing time stays bounded; no stored password is that long.
                errs.push(
                    key,
                    FieldCode::InvalidValue,
                    format!("must be at most {MAX_PASSWORD} characters"),
                );
            }
            s.as_str()
        }
        Some(Value::String(_) | Value::Null) | None => {
            errs.push(key, FieldCode::Required, "is required");
            ""
        }
        Some(_) => {
            errs.push(key, FieldCode::InvalidValue, "must be a string");
            ""
        }
    });
    errs.finish(found).map_err(ApiError::Validation)
}

/// Stores `user` (a new user when there is no `before`) and records `action` by `actor` in the
/// audit log, with the user as they were and as they are.
async fn save_user(
    conn: &mut Conn,
    actor: Option<&str>,
    action: Action,
    before: Option<&UserRow>,
    user: &UserRow,
) -> Result<()> {
    users::save(conn, user, before.is_none()).await?;
    // A recovery code was mailed to the account's address for its owner: one sent to an address
    // the account no longer has, or to an account since deactivated, must not open it.
    if let Some(before) = before
        && (before.profile.email != user.profile.email
            || (before.profile.active && !user.profile.active))
    {
        users::drop_resets(conn, &user.profile.id, &user.profile.updated_at).await?;
    }
    let (before, after) = (before.map(|u| &u.profile), Some(&user.profile));
    audit::record_change(conn, actor, "user", &user.profile.id, action, before, after).await?;
    Ok(())
}

fn token_for(state: &AppState, u: &UserRow) -> Result<String> {
    issue_token(
        state,
        TokenSubject {
            id: &u.profile.id,
            email: &u.profile.email,
            name: &u.profile.name,
            roles: &u.profile.roles,
            token_version: u.token_version,
        },
    )
}
