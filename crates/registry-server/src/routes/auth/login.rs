//! Logging in, under the per-client and per-account failed-login limits.

use super::{required_strs, token_for};
use crate::auth::verify_password;
use crate::error::{ApiError, Result};
use crate::extract::JsonBody;
use crate::limits::ClientAddr;
use crate::state::AppState;
use crate::store::users;
use axum::Json;
use axum::extract::State;
use chrono::Utc;
use registry_core::ErrorBody;
use registry_core::api::LoginRequest;
use registry_core::api::LoginResponse;
use registry_core::text;

/// Reserves a password check for `email` under the per-account rule, or answers 429.
pub(super) async fn reserve_login(state: &AppState, email: &str) -> Result<()> {
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

#[utoipa::path(
    post, path = "/api/login", tag = "authentication", summary = "Log in",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "OK", body = LoginResponse),
        (status = 401, description = "Wrong e-mail or password", body = ErrorBody),
        (status = 429, description = "Too many attempts from this client, or for this account \
            (Retry-After)", body = ErrorBody)
    )
)]
pub(super) async fn login(
    State(state): State<AppState>,
    client: ClientAddr,
    body: JsonBody,
) -> Result<Json<LoginResponse>> {
    state.limiters.login_failures.check(&client)?;
    let value = body.value()?;
    let [email, password] = required_strs(&value, ["email", "password"])?;
    let (email, password) = (text::trim(email).to_lowercase(), password.to_owned());
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
    if !user.profile.active {
        return Err(ApiError::Unauthorized(
            "This account is deactivated.".into(),
        ));
    }
    let mut tx = state.db.begin().await?;
    users::clear_login_failures(&mut tx, &email).await?;
    tx.commit().await?;
    Ok(Json(LoginResponse {
        token: token_for(&state, &user)?,
        user: user.profile,
    }))
}
