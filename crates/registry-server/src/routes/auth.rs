//! Authentication endpoints (spec §4.1): login, register, edit, exclude, change password and
//! password recovery, with the grant rules of product.md §3 and a failed-login limit.

use crate::auth::{Caller, MaybeCaller, TokenSubject, hash_password, issue_token, verify_password};
use crate::db::Conn;
use crate::db::{new_id, now, timestamp};
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::limits::ClientAddr;
use crate::state::AppState;
use crate::store::audit;
use crate::store::users::{self, UserRow};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use chrono::Utc;
use rand::RngCore;
use registry_core::ErrorBody;
use registry_core::api::{
    ChangePasswordInput, IdInput, LoginRequest, PasswordRecoverInput, UserInput,
};
use registry_core::api::{LoginResponse, Message, User};
use registry_core::user::{may_grant, may_manage, read_user};
use registry_core::values::password_problem;
use registry_core::{FieldCode, Role};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// This module's part of the OpenAPI description.
pub fn openapi() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(
        paths(login, register, edit, exclude, change_password, password_recover),
        components(schemas(
            LoginRequest,
            LoginResponse,
            User,
            UserInput,
            IdInput,
            ChangePasswordInput,
            PasswordRecoverInput,
            Message,
            ErrorBody
        ))
    )]
    struct Doc;
    <Doc as utoipa::OpenApi>::openapi()
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/login", post(login))
        .route("/register", post(register))
        .route("/edit", post(edit))
        .route("/exclude", post(exclude))
        .route("/changePassword", post(change_password))
        .route("/change_password", post(change_password))
        .route("/password_recover", post(password_recover))
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
    action: &str,
    before: Option<&UserRow>,
    after: Option<&UserRow>,
) -> Result<()> {
    let id = after.or(before).map(|u| u.id.clone()).unwrap_or_default();
    audit::record_change(
        conn,
        actor,
        "user",
        &id,
        action,
        before.map(UserRow::view).as_ref(),
        after.map(UserRow::view).as_ref(),
    )
    .await?;
    Ok(())
}

fn token_for(state: &AppState, u: &UserRow) -> Result<String> {
    issue_token(
        state,
        TokenSubject {
            id: &u.id,
            email: &u.email,
            name: &u.name,
            roles: &u.roles,
            token_version: u.token_version,
        },
    )
}

/// Reserves a password check for `email` under the per-account rule, or answers 429.
async fn reserve_login(state: &AppState, email: &str) -> Result<()> {
    let l = &state.config.limits;
    let rule = users::LoginRule {
        free: l.login_free_failures,
        delay: l.login_delay,
        max_delay: l.login_max_delay,
        forget_after: l.login_forget_after,
    };
    let mut tx = state.db.begin().await?;
    let wait = users::reserve_login(&mut tx, email, &rule, Utc::now()).await?;
    tx.commit().await?;
    match wait {
        None => Ok(()),
        Some(retry_after_secs) => Err(ApiError::RateLimited { retry_after_secs }),
    }
}

#[utoipa::path(post, path = "/api/login", tag = "authentication", summary = "Log in", request_body = LoginRequest, responses((status = 200, description = "OK", body = LoginResponse), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Wrong e-mail or password", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody), (status = 429, description = "Too many attempts from this client, or for this account (Retry-After)", body = ErrorBody)))]
async fn login(
    State(state): State<AppState>,
    client: ClientAddr,
    body: JsonBody,
) -> Result<Json<LoginResponse>> {
    state.limiters.login_failures.check(&client)?;
    let value = body.value()?;
    let email = required_str(&value, "email")?.trim().to_lowercase();
    let password = required_str(&value, "password")?.to_owned();
    // Counted before the check (and cleared by a success), one login of the account at a time.
    let _turn = state.limiters.account_turn(&email).await;
    reserve_login(&state, &email).await?;
    let user = {
        let mut conn = state.db.read().await?;
        users::by_email(&mut conn, &email).await?
    };
    if !verify_password(password, user.as_ref().map(|u| u.password_hash.clone())).await? {
        state.limiters.login_failures.failed(&client)?;
        return Err(ApiError::Unauthorized("Wrong e-mail or password.".into()));
    }
    let user = user.expect("verified against a stored hash");
    if !user.active {
        return Err(ApiError::Unauthorized(
            "This account is deactivated.".into(),
        ));
    }
    let mut tx = state.db.begin().await?;
    users::clear_login_failures(&mut tx, &email).await?;
    tx.commit().await?;
    Ok(Json(LoginResponse {
        token: token_for(&state, &user)?,
        user: user.view(),
    }))
}

#[utoipa::path(post, path = "/api/register", tag = "authentication", summary = "Create a user (without a token: self-registration as Cliente)", request_body = UserInput, responses((status = 201, description = "Created (with a staff token)", body = User), (status = 202, description = "Without a token: registration received, the same answer whether or not the address already had an account", body = Message), (status = 429, description = "Too many registrations from this client (Retry-After)", body = ErrorBody), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 409, description = "E-mail already used (staff only)", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn register(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    client: ClientAddr,
    body: JsonBody,
) -> Result<Response> {
    match &caller {
        None if !state.config.self_registration => {
            return Err(ApiError::PermissionDenied(
                "Self-registration is disabled on this server; ask a staff member.".into(),
            ));
        }
        None => client.take(&state.limiters.register)?,
        Some(c) if !c.is_staff() => return Err(ApiError::denied()),
        _ => {}
    }
    let value = body.value()?;
    let changes = read_user(&value, true).map_err(ApiError::Validation)?;
    let roles = changes
        .roles
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| vec![Role::Client]);
    let allowed = match &caller {
        None => roles == [Role::Client],
        Some(c) => roles.iter().all(|r| may_grant(&c.roles, *r)),
    };
    if !allowed {
        return Err(ApiError::PermissionDenied(
            "You may not grant the requested roles.".into(),
        ));
    }
    let email = changes
        .email
        .expect("required on register")
        .as_str()
        .to_owned();
    let password_hash = hash_password(changes.password.expect("required on register")).await?;
    let at = now();
    let user = UserRow {
        id: new_id(),
        name: changes.name.expect("required on register"),
        email,
        telephone: changes.telephone.flatten().map(|t| t.as_str().to_owned()),
        cpf: changes.cpf.flatten().map(|c| c.as_str().to_owned()),
        roles,
        active: true,
        licences: registry_core::api::Licences {
            an_number: changes.licences.an_number.flatten(),
            an_validity: changes.licences.an_validity.flatten(),
            fm_number: changes.licences.fm_number.flatten(),
            fm_validity: changes.licences.fm_validity.flatten(),
        },
        password_hash,
        token_version: 0,
        created_at: at.clone(),
        updated_at: at,
    };
    let mut tx = state.db.begin().await?;
    if users::email_taken(&mut tx, &user.email, "").await? {
        if caller.is_none() {
            // Answered as a new registration would be: anyone could otherwise learn which
            // addresses have accounts. The owner hears of it instead.
            drop(tx);
            tell_owner_of_registration(&state, &user.email);
            return Ok(registration_received());
        }
        return Err(ApiError::conflict(
            "conflict",
            format!("A user with e-mail {} already exists.", user.email),
        ));
    }
    users::save(&mut tx, &user, true).await?;
    audit_user(
        &mut tx,
        caller.as_ref().map(|c| c.id.as_str()),
        "create",
        None,
        Some(&user),
    )
    .await?;
    tx.commit().await?;
    if caller.is_none() {
        return Ok(registration_received());
    }
    Ok((StatusCode::CREATED, Json(user.view())).into_response())
}

/// The answer to every self-registration that passed validation, whether the address was new.
fn registration_received() -> Response {
    let message = "Registration received. If the e-mail address had no account, it has one now \
        and you can log in; if it already had one, its owner has been sent an e-mail.";
    (
        StatusCode::ACCEPTED,
        Json(Message {
            message: message.into(),
            id: None,
            token: None,
        }),
    )
        .into_response()
}

/// Mails the owner of `email` that someone tried to register it, in the background (so the
/// answer takes no longer than a real registration) and at most as often as the per-address
/// mail allowance.
fn tell_owner_of_registration(state: &AppState, email: &str) {
    if !crate::limits::allowed(&state.limiters.mails, &email.to_owned()) {
        return;
    }
    let state = state.clone();
    let email = email.to_owned();
    tokio::spawn(async move {
        let body = format!(
            "Hello,\n\nSomeone tried to register a new Facility Registry account with this e-mail \
             address, which already has an account. Nothing was changed.\n\n\
             If it was you, log in as usual, or ask for a password recovery code with \
             POST {}/api/password_recover/ {{\"email\": \"{email}\"}} or `registry user reset-password`.\n\
             If it was not you, you can ignore this message.\n",
            state.config.public_url
        );
        if let Err(e) = state
            .mailer
            .send(&email, "Registration attempt — Facility Registry", body)
            .await
        {
            tracing::error!(error = format!("{e:#}"), "registration notice not sent");
        }
    });
}

/// Refuses to leave the service without an active Administrator.
async fn keep_an_administrator(conn: &mut Conn, before: &UserRow, after: &UserRow) -> Result<()> {
    let was = before.active && before.roles.contains(&Role::Administrator);
    let is = after.active && after.roles.contains(&Role::Administrator);
    if was && !is && users::count_active_with_role(conn, Role::Administrator).await? <= 1 {
        return Err(ApiError::conflict(
            "conflict",
            "This is the last active Administrator; make another Administrator first.",
        ));
    }
    Ok(())
}

/// The target of an edit or exclude, when the caller may manage them.
async fn managed_target(conn: &mut Conn, caller: &Caller, id: &str) -> Result<UserRow> {
    let target = users::by_id(conn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    if target.id != caller.id && !may_manage(&caller.roles, &target.roles) {
        return Err(if caller.is_staff() {
            ApiError::denied()
        } else {
            ApiError::not_found("user")
        });
    }
    Ok(target)
}

#[utoipa::path(post, path = "/api/edit", tag = "authentication", summary = "Edit a user", request_body = UserInput, responses((status = 200, description = "OK", body = User), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 409, description = "E-mail already used, or last Administrator", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn edit(State(state): State<AppState>, caller: Caller, body: JsonBody) -> Result<Json<User>> {
    let value = body.value()?;
    let id = match value.get("_id") {
        None | Some(Value::Null) => caller.id.clone(),
        Some(_) => JsonBody::id(&value)?,
    };
    let changes = read_user(&value, false).map_err(ApiError::Validation)?;
    // An Administrator sending `active: true` also lifts the account's failed-login delay.
    let unlock = changes.active == Some(true) && caller.has(Role::Administrator);
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "users", &id).await?;
    let before = managed_target(&mut tx, &caller, &id).await?;
    let mut user = before.clone();
    if let Some(roles) = changes.roles {
        let roles = if roles.is_empty() {
            vec![Role::Client]
        } else {
            roles
        };
        let changing = roles != user.roles;
        if changing
            && !roles
                .iter()
                .chain(user.roles.iter())
                .all(|r| may_grant(&caller.roles, *r))
        {
            return Err(ApiError::PermissionDenied(
                "You may not grant or remove these roles.".into(),
            ));
        }
        user.roles = roles;
    }
    if let Some(active) = changes.active {
        if !active && user.active {
            user.token_version += 1;
        }
        user.active = active;
    }
    if let Some(name) = changes.name {
        user.name = name;
    }
    if let Some(email) = changes.email {
        if users::email_taken(&mut tx, email.as_str(), &user.id).await? {
            return Err(ApiError::conflict(
                "conflict",
                format!("A user with e-mail {} already exists.", email.as_str()),
            ));
        }
        user.email = email.as_str().to_owned();
    }
    if let Some(t) = changes.telephone {
        user.telephone = t.map(|t| t.as_str().to_owned());
    }
    if let Some(c) = changes.cpf {
        user.cpf = c.map(|c| c.as_str().to_owned());
    }
    let l = changes.licences;
    for (change, slot) in [
        (l.an_number, &mut user.licences.an_number),
        (l.an_validity, &mut user.licences.an_validity),
        (l.fm_number, &mut user.licences.fm_number),
        (l.fm_validity, &mut user.licences.fm_validity),
    ] {
        if let Some(v) = change {
            *slot = v;
        }
    }
    keep_an_administrator(&mut tx, &before, &user).await?;
    let changed = user.view() != before.view() || user.token_version != before.token_version;
    if changed {
        user.updated_at = now();
        users::save(&mut tx, &user, false).await?;
        audit_user(
            &mut tx,
            Some(&caller.id),
            "edit",
            Some(&before),
            Some(&user),
        )
        .await?;
    }
    if unlock {
        users::clear_login_failures(&mut tx, &before.email).await?;
    }
    if changed || unlock {
        tx.commit().await?;
    }
    Ok(Json(user.view()))
}

#[utoipa::path(post, path = "/api/exclude", tag = "authentication", summary = "Deactivate a user", request_body = IdInput, responses((status = 200, description = "Deactivated", body = Message), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 409, description = "Last active Administrator", body = ErrorBody)), security(("bearer" = [])))]
async fn exclude(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    let id = JsonBody::id(&body.value()?)?;
    let mut tx = state.db.begin().await?;
    crate::store::lock_row(&mut tx, "users", &id).await?;
    let before = managed_target(&mut tx, &caller, &id).await?;
    let mut user = before.clone();
    if user.active {
        user.active = false;
        user.token_version += 1;
        user.updated_at = now();
        keep_an_administrator(&mut tx, &before, &user).await?;
        users::save(&mut tx, &user, false).await?;
        audit_user(
            &mut tx,
            Some(&caller.id),
            "deactivate",
            Some(&before),
            Some(&user),
        )
        .await?;
        tx.commit().await?;
    }
    Ok(Json(Message {
        message: "User deactivated.".into(),
        id: Some(id),
        token: None,
    }))
}

fn new_password(value: &Value) -> Result<String> {
    let p = required_str(value, "newPassword")?;
    match password_problem(p) {
        Some(problem) => Err(ApiError::field(
            "newPassword",
            FieldCode::WeakPassword,
            problem,
        )),
        None => Ok(p.to_owned()),
    }
}

/// Sets a password and invalidates every token issued before.
async fn set_password(
    state: &AppState,
    actor: Option<&str>,
    mut user: UserRow,
    password: String,
) -> Result<UserRow> {
    let before = user.clone();
    user.password_hash = hash_password(password).await?;
    user.token_version += 1;
    user.updated_at = now();
    let mut tx = state.db.begin().await?;
    users::save(&mut tx, &user, false).await?;
    // Whoever sets a password (its owner, a recovery code, an Administrator) may log in at once.
    users::clear_login_failures(&mut tx, &user.email).await?;
    audit_user(
        &mut tx,
        actor,
        "password_change",
        Some(&before),
        Some(&user),
    )
    .await?;
    tx.commit().await?;
    Ok(user)
}

#[utoipa::path(post, path = "/api/changePassword", tag = "authentication", summary = "Change a password (also /api/change_password)", request_body = ChangePasswordInput, responses((status = 200, description = "Changed; a fresh token for the caller", body = Message), (status = 401, description = "Missing or invalid token", body = ErrorBody), (status = 403, description = "The role may not do this", body = ErrorBody), (status = 404, description = "No such record, or not visible to the caller", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody)), security(("bearer" = [])))]
async fn change_password(
    State(state): State<AppState>,
    caller: Caller,
    body: JsonBody,
) -> Result<Json<Message>> {
    let value = body.value()?;
    let target = match value.get("_id").and_then(Value::as_str) {
        Some(id) if id != caller.id => {
            caller.require_any(&[Role::Administrator])?;
            Some(id.to_owned())
        }
        _ => None,
    };
    let mut conn = state.db.read().await?;
    match target {
        Some(id) => {
            let password = new_password(&value)?;
            let user = users::by_id(&mut conn, &id)
                .await?
                .ok_or_else(|| ApiError::not_found("user"))?;
            drop(conn);
            set_password(&state, Some(&caller.id), user, password).await?;
            Ok(Json(Message {
                message: "Password changed; the user's sessions were ended.".into(),
                id: Some(id),
                token: None,
            }))
        }
        None => {
            let current = required_str(&value, "currentPassword")?.to_owned();
            let password = new_password(&value)?;
            let user = users::by_id(&mut conn, &caller.id)
                .await?
                .ok_or_else(|| ApiError::not_found("user"))?;
            drop(conn);
            if !verify_password(current, Some(user.password_hash.clone())).await? {
                return Err(ApiError::field(
                    "currentPassword",
                    FieldCode::InvalidValue,
                    "is not your current password",
                ));
            }
            let user = set_password(&state, Some(&caller.id), user, password).await?;
            Ok(Json(Message {
                message: "Password changed; other sessions were ended.".into(),
                id: Some(user.id.clone()),
                token: Some(token_for(&state, &user)?),
            }))
        }
    }
}

fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// `{email}` mails a single-use token (always 202, so accounts cannot be discovered);
/// `{token, newPassword}` sets the password.
#[utoipa::path(post, path = "/api/password_recover", tag = "authentication", summary = "Password recovery", request_body = PasswordRecoverInput, responses((status = 202, description = "Recovery e-mail sent if the account exists", body = Message), (status = 200, description = "Password set with a recovery code", body = Message), (status = 400, description = "Malformed JSON or wrong content type", body = ErrorBody), (status = 422, description = "Field errors, all at once", body = ErrorBody), (status = 429, description = "Too many requests from this client (Retry-After)", body = ErrorBody)))]
async fn password_recover(
    State(state): State<AppState>,
    client: ClientAddr,
    body: JsonBody,
) -> Result<(StatusCode, Json<Message>)> {
    client.take(&state.limiters.recovery)?;
    let value = body.value()?;
    if value.get("token").is_some() {
        let token = required_str(&value, "token")?;
        let password = new_password(&value)?;
        let mut tx = state.db.begin().await?;
        let user_id = users::take_reset(&mut tx, &token_hash(token), &now()).await?;
        let invalid = || {
            ApiError::field(
                "token",
                FieldCode::InvalidValue,
                "is invalid, already used or expired; ask for a new one",
            )
        };
        let user_id = user_id.ok_or_else(invalid)?;
        let user = users::by_id(&mut tx, &user_id)
            .await?
            .filter(|u| u.active)
            .ok_or_else(invalid)?;
        tx.commit().await?;
        set_password(&state, Some(&user_id), user, password).await?;
        return Ok((
            StatusCode::OK,
            Json(Message {
                message: "Password changed; you can log in now.".into(),
                id: None,
                token: None,
            }),
        ));
    }
    let email = required_str(&value, "email")?.trim().to_lowercase();
    let user = {
        let mut conn = state.db.read().await?;
        users::by_email(&mut conn, &email).await?
    };
    // Past the address's mail allowance the answer stays the same but no mail goes out: the
    // owner is not flooded, and the codes already sent stay valid.
    let user = user
        .filter(|u| u.active)
        .filter(|u| crate::limits::allowed(&state.limiters.mails, &u.email));
    if let Some(user) = user {
        let mut raw = [0u8; 32];
        rand::rng().fill_bytes(&mut raw);
        let token = hex::encode(raw);
        let expires = timestamp(Utc::now() + chrono::Duration::hours(1));
        let mut tx = state.db.begin().await?;
        users::add_reset(&mut tx, &token_hash(&token), &user.id, &expires).await?;
        tx.commit().await?;
        let body = format!(
            "Hello {},\n\nA password recovery was requested for your Facility Registry account.\n\
             Your recovery code (valid for 1 hour, usable once):\n\n    {token}\n\n\
             Set a new password with: POST {}/api/password_recover/ {{\"token\": \"<code>\", \"newPassword\": \"...\"}}\n\
             or `registry user reset-password --token <code>`.\n\nIf you did not ask for this, ignore this message.\n",
            user.name, state.config.public_url
        );
        if let Err(e) = state
            .mailer
            .send(&user.email, "Password recovery — Facility Registry", body)
            .await
        {
            tracing::error!(
                error = format!("{e:#}"),
                "password recovery e-mail not sent"
            );
        }
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
