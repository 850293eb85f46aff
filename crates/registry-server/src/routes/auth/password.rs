//! Changing a password (one's own, or anyone's for an Administrator) and recovery with an e-mailed
//! code.

use super::login::reserve_login;
use super::{required_strs, save_user, token_for};
use crate::auth::{Caller, hash_password, verify_password};
use crate::db::{Tx, now, timestamp};
use crate::error::{ApiError, OrNotFound, Result};
use crate::extract::JsonBody;
use crate::limits::ClientAddr;
use crate::routes::shared::{Forbidden, NotFound};
use crate::state::AppState;
use crate::store::lock_row;
use crate::store::users::{self, UserRow};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::Utc;
use rand::RngCore;
use registry_core::ErrorBody;
use registry_core::api::Message;
use registry_core::api::{ChangePasswordInput, PasswordRecoverInput};
use registry_core::audit::Action;
use registry_core::payload::MAX_PASSWORD;
use registry_core::{FieldCode, FieldError, Role, text};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Sets the password of the user `id` to `hash` in `tx` and invalidates every token issued
/// before. The user's row is locked and read afresh, and `check` looks at it as it is now: two
/// changes made at once (each verified against the same old password) cannot both succeed, and
/// neither overwrites what another request changed meanwhile.
async fn set_password(
    mut tx: Tx,
    actor: Option<&str>,
    id: &str,
    hash: String,
    check: impl FnOnce(&UserRow) -> Result<()>,
) -> Result<UserRow> {
    lock_row(&mut tx, "users", id).await?;
    let before = users::by_id(&mut tx, id).await?.or_not_found("user")?;
    check(&before)?;
    let mut user = before.clone();
    user.password_hash = hash;
    user.token_version += 1;
    user.profile.updated_at = now();
    save_user(&mut tx, actor, Action::ChangePassword, Some(&before), &user).await?;
    // Whoever sets a password (its owner, a recovery code, an Administrator) may log in at once,
    // and recovery codes asked for before no longer work.
    users::clear_login_failures(&mut tx, &user.profile.email).await?;
    users::drop_resets(&mut tx, id, &user.profile.updated_at).await?;
    tx.commit().await?;
    Ok(user)
}

#[utoipa::path(
    post, path = "/api/changePassword", tag = "authentication",
    summary = "Change a password (also /api/change_password)",
    request_body = ChangePasswordInput,
    responses(
        (status = 200, description = "Changed; a fresh token for the caller", body = Message),
        Forbidden, NotFound,
        (status = 429, description = "Too many wrong `currentPassword`s for this account or \
            client (Retry-After)", body = ErrorBody)
    )
)]
pub(super) async fn change_password(
    State(state): State<AppState>,
    client: ClientAddr,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    let value = body.value()?;
    if let Some(id) = value.get("_id")
        && !(id.is_string() || id.is_null())
    {
        let mut errors = vec![FieldError::new(
            "_id",
            FieldCode::InvalidValue,
            "must be a string",
        )];
        if let Err(ApiError::Validation(more)) = required_strs(&value, ["newPassword"]) {
            errors.extend(more);
        }
        return Err(ApiError::Validation(errors));
    }
    // A blank `_id` names nobody else: the caller's own change.
    let named = value
        .get("_id")
        .and_then(Value::as_str)
        .map(registry_core::text::trim);
    let target = match named.filter(|id| !id.is_empty()) {
        Some(id) if id != caller.id => {
            caller.require_any(&[Role::Administrator])?;
            Some(id.to_owned())
        }
        _ => None,
    };
    match target {
        Some(id) => {
            let [password] = required_strs(&value, ["newPassword"])?;
            let hash = hash_password(password.to_owned()).await?;
            let mut tx = state.db.begin().await?;
            // Judged again on the account as it is now: a demotion committed while the password
            // was hashed refuses the change.
            caller.still(&mut tx).await?;
            set_password(tx, Some(&caller.id), &id, hash, |_| Ok(())).await?;
            Ok(Json(Message {
                message: "Password changed; the user's sessions were ended.".into(),
                id: Some(id),
                token: None,
            }))
        }
        None => {
            let verified = {
                let mut conn = state.db.read().await?;
                // A session ended meanwhile (deactivation, another password change) is a 401
                // before its current password is judged against the new one.
                caller.now(&mut conn).await?;
                let user = users::by_id(&mut conn, &caller.id).await?;
                user.or_not_found("user")?.password_hash
            };
            let not_current = FieldError::new(
                "currentPassword",
                FieldCode::InvalidValue,
                "is not your current password",
            );
            let current = value.get("currentPassword").and_then(Value::as_str);
            // A current password past the policy's length is reported by `required_strs` and
            // never checked (nor counted as a failed attempt), as at login.
            let checkable = |c: &&str| !c.is_empty() && c.chars().count() <= MAX_PASSWORD;
            let current_ok = match current.filter(checkable) {
                Some(c) => check_current(&state, &client, &caller.email, c, &verified).await?,
                None => true, // reported by `required_strs`
            };
            // Every failing field at once: a wrong current password with a refused new one.
            let password = match (
                required_strs(&value, ["currentPassword", "newPassword"]),
                current_ok,
            ) {
                (Ok([_, password]), true) => password.to_owned(),
                (read, _) => {
                    let mut errors = match read {
                        Err(ApiError::Validation(errors)) => errors,
                        Err(e) => return Err(e),
                        Ok(_) => Vec::new(),
                    };
                    if !current_ok {
                        errors.insert(0, not_current);
                    }
                    return Err(ApiError::Validation(errors));
                }
            };
            let not_current = || ApiError::Validation(vec![not_current.clone()]);
            let hash = hash_password(password).await?;
            let mut tx = state.db.begin().await?;
            // The account as it is now: deactivated, or its password changed, meanwhile → 401.
            caller.now(&mut tx).await?;
            // A change that committed since the check above made `current` stale.
            let still = |u: &UserRow| {
                if u.password_hash == verified {
                    Ok(())
                } else {
                    Err(not_current())
                }
            };
            let user = set_password(tx, Some(&caller.id), &caller.id, hash, still).await?;
            Ok(Json(Message {
                message: "Password changed; other sessions were ended.".into(),
                id: Some(user.profile.id.clone()),
                token: Some(token_for(&state, &user)?),
            }))
        }
    }
}

/// A self-change's current password checked against `hash` under the login's limits (per client
/// and per account, docs/decisions.md): a token is no licence to guess its owner's password, and
/// guesses here count against the account's logins as theirs count here.
async fn check_current(
    state: &AppState,
    client: &ClientAddr,
    email: &str,
    password: &str,
    hash: &str,
) -> Result<bool> {
    state.limiters.login_failures.check(client)?;
    let _turn = state.limiters.account_turn(email).await;
    reserve_login(state, email).await?;
    if verify_password(password.to_owned(), Some(hash.to_owned())).await? {
        let mut tx = state.db.begin().await?;
        users::clear_login_failures(&mut tx, email).await?;
        tx.commit().await?;
        Ok(true)
    } else {
        state.limiters.login_failures.failed(client)?;
        Ok(false)
    }
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// `{email}` mails a single-use token (always 202, so accounts cannot be discovered; the code is
/// stored, hashed, before the answer, and mailed in the background); `{token, newPassword}` sets
/// the password.
#[utoipa::path(
    post, path = "/api/password_recover", tag = "authentication", summary = "Password recovery",
    request_body = PasswordRecoverInput,
    responses(
        (status = 202, description = "Recovery e-mail sent if the account exists", body = Message),
        (status = 200, description = "Password set with a recovery code", body = Message),
        (status = 429, description = "Too many requests from this client (Retry-After)",
            body = ErrorBody)
    )
)]
pub(super) async fn password_recover(
    State(state): State<AppState>,
    client: ClientAddr,
    body: JsonBody,
) -> Result<(StatusCode, Json<Message>)> {
    client.take(&state.limiters.recovery)?;
    let value = body.value()?;
    if value.get("token").is_some() {
        let bad_code = || {
            FieldError::new(
                "token",
                FieldCode::InvalidValue,
                "is invalid, already used or expired; ask for a new one",
            )
        };
        let invalid = || ApiError::Validation(vec![bad_code()]);
        let [token, password] = match required_strs(&value, ["token", "newPassword"]) {
            Ok(found) => found,
            // A bad code is named beside a weak password, so that one answer says all that is
            // wrong; a good code stays unused.
            Err(ApiError::Validation(mut errs)) => {
                if let Some(token) = value["token"].as_str().filter(|t| !t.is_empty()) {
                    let mut conn = state.db.read().await?;
                    let owner = users::reset_owner(&mut conn, &token_hash(token), &now()).await?;
                    if owner.is_none() {
                        errs.insert(0, bad_code());
                    }
                }
                return Err(ApiError::Validation(errs));
            }
            Err(e) => return Err(e),
        };
        let hash = hash_password(password.to_owned()).await?;
        let owner = {
            let mut conn = state.db.read().await?;
            users::reset_owner(&mut conn, &token_hash(token), &now()).await?
        };
        let owner = owner.ok_or_else(invalid)?;
        // The user's row first, then the code, in the order every other password change takes
        // them (user, then their codes): two at once wait for each other, never deadlock.
        let mut tx = state.db.begin().await?;
        lock_row(&mut tx, "users", &owner).await?;
        let user_id = users::take_reset(&mut tx, &token_hash(token), &now()).await?;
        let user_id = user_id.filter(|u| *u == owner).ok_or_else(invalid)?;
        // The code is used up only with the password set: both, or neither.
        let active = |u: &UserRow| u.profile.active.then_some(()).ok_or_else(invalid);
        set_password(tx, Some(&user_id), &user_id, hash, active).await?;
        return Ok((
            StatusCode::OK,
            Json(Message {
                message: "Password changed; you can log in now.".into(),
                id: None,
                token: None,
            }),
        ));
    }
    let [email] = required_strs(&value, ["email"])?;
    let email = text::trim(email).to_lowercase();
    let user = {
        let mut conn = state.db.read().await?;
        users::by_email(&mut conn, &email).await?
    };
    // Past the address's mail allowance the answer stays the same but no mail goes out: the
    // owner is not flooded, and the codes already sent stay valid.
    let user = user
        .filter(|u| u.profile.active)
        .filter(|u| crate::limits::allowed(&state.limiters.mails, &u.profile.email));
    // The code is stored and mailed after the answer: writing it first would make the answer
    // for an account slower than for an unknown address (a read only), telling anyone which
    // addresses have accounts. A failure is only logged.
    if let Some(user) = user {
        tokio::spawn(async move {
            if let Err(e) = send_recovery_code(&state, &user).await {
                tracing::error!(error = %e, "cannot store a password recovery code");
            }
        });
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(Message {
            message:
                "If the address belongs to an active account, a recovery e-mail has been sent."
                    .into(),
            id: None,
            token: None,
        }),
    ))
}

/// Stores a new recovery code of `user` and mails it.
async fn send_recovery_code(state: &AppState, user: &UserRow) -> anyhow::Result<()> {
    let mut raw = [0u8; 32];
    rand::rng().fill_bytes(&mut raw);
    let token = hex::encode(raw);
    let expires = timestamp(Utc::now() + chrono::Duration::hours(1));
    let mut tx = state.db.begin().await?;
    users::add_reset(&mut tx, &token_hash(&token), &user.profile.id, &expires).await?;
    tx.commit().await?;
    let body = format!(
        "Hello {},\n\nA password recovery was requested for your Facility Registry account.\n\
             Your recovery code (valid for 1 hour, usable once):\n\n    {token}\n\n\
             Set a new password with: POST {}/api/password_recover/ {{\"token\": \"<code>\", \"newPassword\": \"...\"}}\n\
             or `registry user reset-password --code <code>`.\n\nIf you did not ask for this, ignore this message.\n",
        user.profile.name, state.config.public_url
    );
    state.mailer.send_in_background(
        user.profile.email.clone(),
        "Password recovery — Facility Registry",
        body,
        "password recovery e-mail",
    );
    Ok(())
}
