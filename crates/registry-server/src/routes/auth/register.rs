//! Creating a user: by staff, or self-registration as `Cliente` that tells no one which addresses
//! have accounts.

use super::save_user;
use crate::auth::{MaybeCaller, hash_password};
use crate::db::{new_id, now};
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::limits::ClientAddr;
use crate::routes::shared::Forbidden;
use crate::state::AppState;
use crate::store::users::{self, UserRow};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use registry_core::ErrorBody;
use registry_core::Role;
use registry_core::api::UserInput;
use registry_core::api::{Message, User};
use registry_core::audit::Action;
use registry_core::user::{may_create_with, read_user, requested_roles};

#[utoipa::path(
    post, path = "/api/register", tag = "authentication",
    summary = "Create a user (without a token: self-registration as Cliente)",
    request_body = UserInput,
    responses(
        (status = 201, headers(("Location" = String, description = "The created record's path")), description = "Created (with a staff token)", body = User),
        (status = 202, description = "Without a token: registration received, the same answer \
            whether or not the address already had an account", body = Message),
        (status = 429, description = "Too many registrations from this client (Retry-After)",
            body = ErrorBody),
        Forbidden,
        (status = 409, description = "E-mail already used (staff only)", body = ErrorBody)
    )
)]
pub(super) async fn register(
    State(state): State<AppState>,
    MaybeCaller(caller): MaybeCaller,
    client: ClientAddr,
    body: JsonBody,
) -> Result<Response> {
    match &caller {
        None if !state.config.self_registration => {
            // Registering then takes a staff token, which this request lacks (401, not 403).
            return Err(ApiError::Unauthorized(
                "Self-registration is disabled on this server: sign in as staff, or ask a staff member."
                    .into(),
            ));
        }
        None => client.take(&state.limiters.register)?,
        Some(c) if !c.is_staff() => return Err(ApiError::denied()),
        _ => {}
    }
    let value = body.value()?;
    // Roles the caller may not grant are refused before the other fields are judged (403
    // before 422); malformed ones are field errors.
    let editor = caller.as_ref().map(|c| c.roles.as_slice());
    if requested_roles(&value).is_some_and(|roles| !may_create_with(editor, &roles)) {
        return Err(ApiError::PermissionDenied(
            "You may not grant the requested roles.".into(),
        ));
    }
    let changes = read_user(&value, true).map_err(ApiError::Validation)?;
    let roles = changes
        .roles
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| vec![Role::Client]);
    let email = changes
        .email
        .expect("required on register")
        .as_str()
        .to_owned();
    let password_hash = hash_password(changes.password.expect("required on register")).await?;
    let at = now();
    let user = UserRow {
        profile: User {
            id: new_id(),
            name: changes.name.expect("required on register"),
            email,
            telephone: changes.telephone.flatten().map(|t| t.as_str().to_owned()),
            cpf: changes.cpf.flatten().map(|c| c.as_str().to_owned()),
            roles,
            // Staff may register an account already deactivated (an import of past users);
            // one registering themself is active.
            active: caller.is_none() || changes.active != Some(false),
            licences: registry_core::api::Licences {
                an_number: changes.licences.an_number.flatten(),
                an_validity: changes.licences.an_validity.flatten(),
                fm_number: changes.licences.fm_number.flatten(),
                fm_validity: changes.licences.fm_validity.flatten(),
            },
            created_at: at.clone(),
            updated_at: at,
        },
        password_hash,
        token_version: 0,
    };
    let mut tx = state.db.begin().await?;
    // The caller as they are now, in the transaction: a demotion or deactivation committed while
    // the password was hashed must not let this request grant what the caller no longer may.
    // (A deactivation or a password change refuses it with 401, as it refuses the token.)
    if let Some(c) = &caller {
        let now = c.now(&mut tx).await?;
        if !may_create_with(Some(&now.roles), &user.profile.roles) {
            return Err(ApiError::PermissionDenied(
                "You may not grant the requested roles (your account changed meanwhile).".into(),
            ));
        }
    }
    if users::email_taken(&mut tx, &user.profile.email, "").await? {
        if caller.is_none() {
            // Answered as a new registration would be: anyone could otherwise learn which
            // addresses have accounts. The owner hears of it instead.
            drop(tx);
            tell_owner_of_registration(&state, &user.profile.email);
            return Ok(registration_received());
        }
        return Err(ApiError::conflict(
            "conflict",
            format!("A user with e-mail {} already exists.", user.profile.email),
        ));
    }
    let actor = caller.as_ref().map(|c| c.id.as_str());
    if let Err(e) = save_user(&mut tx, actor, Action::Create, None, &user).await {
        drop(tx);
        // A concurrent registration of the address committed first: answered as above.
        if matches!(e, ApiError::Conflict { .. }) && caller.is_none() {
            let mut conn = state.db.read().await?;
            if users::email_taken(&mut conn, &user.profile.email, "").await? {
                tell_owner_of_registration(&state, &user.profile.email);
                return Ok(registration_received());
            }
        }
        return Err(e);
    }
    tx.commit().await?;
    if caller.is_none() {
        return Ok(registration_received());
    }
    let id = user.profile.id.clone();
    Ok(crate::routes::audited::created_at("/api/user", &id, user.profile).into_response())
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
    let body = format!(
        "Hello,\n\nSomeone tried to register a new Facility Registry account with this e-mail \
         address, which already has an account. Nothing was changed.\n\n\
         If it was you, log in as usual, or ask for a password recovery code with \
         POST {}/api/password_recover/ {{\"email\": \"{email}\"}} or `registry user recover {email}`.\n\
         If it was not you, you can ignore this message.\n",
        state.config.public_url
    );
    state.mailer.send_in_background(
        email.to_owned(),
        "Registration attempt — Facility Registry",
        body,
        "registration notice",
    );
}
