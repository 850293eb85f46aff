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
use crate::store::users::UserRow;
use registry_core::FieldCode;
use registry_core::audit::Action;
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

fn required_str<'a>(v: &'a Value, key: &str) -> Result<&'a str> {
    match v.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(Value::String(_)) | Some(Value::Null) | None => {
            Err(ApiError::field(key, FieldCode::Required, "is required"))
        }
        Some(_) => Err(ApiError::field(
            key,
            FieldCode::InvalidValue,
            "must be a string",
        )),
    }
}

async fn audit_user(
    conn: &mut Conn,
    actor: Option<&str>,
    action: Action,
    before: Option<&UserRow>,
    after: Option<&UserRow>,
) -> Result<()> {
    let id = after
        .or(before)
        .map(|u| u.profile.id.as_str())
        .unwrap_or_default();
    audit::record_change(
        conn,
        actor,
        "user",
        id,
        action,
        before.map(|u| &u.profile),
        after.map(|u| &u.profile),
    )
    .await?;
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
