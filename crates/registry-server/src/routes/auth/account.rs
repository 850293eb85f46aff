//! Editing and deactivating a user within the grant rules, never leaving the service without an
//! active Administrator.

use super::save_user;
use crate::auth::Caller;
use crate::db::Conn;
use crate::db::now;
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::JsonBody;
use crate::routes::shared::{Forbidden, NotFound};
use crate::routes::{archive, audited};
use crate::state::AppState;
use crate::store::users::{self, UserRow};
use axum::Json;
use axum::extract::State;
use registry_core::ErrorBody;
use registry_core::Role;
use registry_core::api::{IdInput, UserInput};
use registry_core::api::{Message, User};
use registry_core::audit::Action;
use registry_core::user::{may_manage, may_set_requested_roles, read_user};
use serde_json::Value;

/// Refuses to leave the service without an active Administrator.
async fn keep_an_administrator(conn: &mut Conn, before: &UserRow, after: &UserRow) -> Result<()> {
    let was = before.profile.active && before.profile.roles.contains(&Role::Administrator);
    let is = after.profile.active && after.profile.roles.contains(&Role::Administrator);
    if was && !is && users::count_active_with_role(conn, Role::Administrator).await? <= 1 {
        return Err(ApiError::conflict(
            "conflict",
            "This is the last active Administrator; make another Administrator first.",
        ));
    }
    Ok(())
}

/// The target of an edit or exclude, when the caller may manage them, and the caller with their
/// roles as they are now: read in the transaction, so that a demotion or deactivation committed
/// since the token was checked cannot let this request do what the caller no longer may (as a
/// staff registration re-reads its caller).
async fn managed_target(conn: &mut Conn, caller: &Caller, id: &str) -> Result<(UserRow, Caller)> {
    let caller = caller.now(conn).await?;
    let target = users::by_id(conn, id).await?.or_not_found("user")?;
    if target.profile.id != caller.id && !may_manage(&caller.roles, &target.profile.roles) {
        return Err(if caller.is_staff() {
            ApiError::denied()
        } else {
            ApiError::not_found("user")
        });
    }
    Ok((target, caller))
}

#[utoipa::path(
    post, path = "/api/edit", tag = "authentication", summary = "Edit a user",
    request_body = UserInput,
    responses(
        (status = 200, description = "OK", body = User), Forbidden, NotFound,
        (status = 409, description = "E-mail already used, or last Administrator",
            body = ErrorBody),
        (status = 429, description = "A `Cliente`'s sixth change of their own e-mail within an \
            hour (Retry-After)", body = ErrorBody)
    )
)]
pub(super) async fn edit(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<User>> {
    let value = body.value()?;
    let id = match value.get("_id") {
        None | Some(Value::Null) => caller.id.clone(),
        Some(_) => JsonBody::id(&value)?,
    };
    // Who may edit the user is settled before the fields are read (403 before 422).
    let mut tx = audited::locked(&state, "users", &id).await?;
    let (before, caller) = managed_target(&mut tx, &caller, &id).await?;
    if !may_set_requested_roles(&caller.roles, &before.profile.roles, &value) {
        return Err(roles_not_grantable());
    }
    let changes = read_user(&value, false).map_err(ApiError::Validation)?;
    // An Administrator sending `active: true` also lifts the account's failed-login delay.
    let unlock = changes.active == Some(true) && caller.has(Role::Administrator);
    let view = changes
        .apply_to(&before.profile, &caller.roles)
        .map_err(|_| roles_not_grantable())?;
    let new_email = view.email != before.profile.email;
    if new_email && !caller.is_staff() {
        crate::limits::take(&state.limiters.email_changes, &caller.id)?;
    }
    if new_email && users::email_taken(&mut tx, &view.email, &id).await? {
        return Err(ApiError::conflict(
            "conflict",
            format!("A user with e-mail {} already exists.", view.email),
        ));
    }
    let mut user = before.clone();
    user.profile = view;
    let deactivated = before.profile.active && !user.profile.active;
    if deactivated {
        user.token_version += 1;
    }
    keep_an_administrator(&mut tx, &before, &user).await?;
    let changed = user.profile != before.profile || user.token_version != before.token_version;
    if changed {
        user.profile.updated_at = now();
        let actor = Some(caller.id.as_str());
        // Logged as `/exclude/` logs it, whichever route deactivated the account.
        let action = if deactivated {
            Action::Deactivate
        } else {
            Action::Edit
        };
        save_user(&mut tx, actor, action, Some(&before), &user).await?;
    }
    if unlock {
        users::clear_login_failures(&mut tx, &before.profile.email).await?;
    }
    if changed || unlock {
        tx.commit().await?;
    }
    if new_email {
        tell_old_address(&state, &caller, &before.profile, &user.profile.email);
    }
    Ok(Json(user.profile))
}

/// Tells the address an account had that its e-mail changed (a change made by someone else
/// would otherwise pass unseen, and with it the account: recovery codes go to the new address).
fn tell_old_address(state: &AppState, caller: &Caller, before: &User, new_email: &str) {
    if !crate::limits::allowed(&state.limiters.mails, &before.email) {
        return;
    }
    let by = if caller.id == before.id {
        "from your own session".to_owned()
    } else {
        format!("by {} ({})", caller.name, caller.email)
    };
    let body = format!(
        "Hello {},\n\nThe e-mail address of your Facility Registry account was changed\n\
         {by},\nfrom this address to {new_email}.\n\
         Logging in and password recovery now use the new address.\n\n\
         If you did not ask for this, contact your registry's Administrator.\n",
        before.name
    );
    state.mailer.send_in_background(
        before.email.clone(),
        "Your Facility Registry e-mail address was changed",
        body,
        "e-mail change notice",
    );
}

#[utoipa::path(
    post, path = "/api/exclude", tag = "authentication", summary = "Deactivate a user",
    request_body = IdInput,
    responses(
        (status = 200, description = "Deactivated", body = Message), Forbidden, NotFound,
        (status = 409, description = "Last active Administrator", body = ErrorBody)
    )
)]
pub(super) async fn exclude(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    let (mut tx, id) = archive::begin(&state, body, "users").await?;
    let (before, caller) = managed_target(&mut tx, &caller, &id).await?;
    let mut user = before.clone();
    if user.profile.active {
        user.profile.active = false;
        user.token_version += 1;
        user.profile.updated_at = now();
        keep_an_administrator(&mut tx, &before, &user).await?;
        let actor = Some(caller.id.as_str());
        save_user(&mut tx, actor, Action::Deactivate, Some(&before), &user).await?;
        tx.commit().await?;
    }
    Ok(Json(Message {
        message: "User deactivated.".into(),
        id: Some(id),
        token: None,
    }))
}

fn roles_not_grantable() -> ApiError {
    ApiError::PermissionDenied("You may not grant or remove these roles.".into())
}
