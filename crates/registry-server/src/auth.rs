//! Authentication: argon2id password hashes (off the async threads), HS256 JWTs, and the
//! `Caller` extractor that admits only tokens of active users issued since their last password
//! change or deactivation.

use crate::db::Conn;
use crate::error::{ApiError, Result};
use crate::state::AppState;
use crate::store::users::UserAuth;
use anyhow::Context;
use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash};
use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};
use jsonwebtoken::{Algorithm, Header, Validation};
use registry_core::Role;
use registry_core::user::is_staff;
use serde::{Deserialize, Serialize};

/// The token's claims (product.md §3). `ver` is the user's token version when it was issued.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub id: String,
    pub email: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub roles: Vec<Role>,
    pub iat: i64,
    pub exp: i64,
    pub ver: i64,
}

pub struct TokenSubject<'a> {
    pub id: &'a str,
    pub email: &'a str,
    pub name: &'a str,
    pub roles: &'a [Role],
    pub token_version: i64,
}

pub fn issue_token(state: &AppState, who: TokenSubject<'_>) -> Result<String> {
    let now = chrono::Utc::now().timestamp();
    let claims = Claims {
        sub: who.id.to_owned(),
        id: who.id.to_owned(),
        email: who.email.to_owned(),
        name: who.name.to_owned(),
        kind: who
            .roles
            .first()
            .map(|r| r.as_str().to_owned())
            .unwrap_or_default(),
        roles: who.roles.to_vec(),
        iat: now,
        exp: now + state.config.token_ttl.as_secs() as i64,
        ver: who.token_version,
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &state.keys.encoding,
    )
    .context("cannot sign token")
    .map_err(ApiError::from)
}

/// Argon2 takes ~19 MiB and a core per hash: at most one hash per core runs at a time, so a burst
/// of logins queues instead of exhausting memory. The permit moves into the blocking task, so a
/// request dropped mid-hash (client gone) keeps its slot until the hash really ends.
async fn hashing_permit() -> tokio::sync::SemaphorePermit<'static> {
    static PERMITS: std::sync::LazyLock<tokio::sync::Semaphore> = std::sync::LazyLock::new(|| {
        tokio::sync::Semaphore::new(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
        )
    });
    PERMITS
        .acquire()
        .await
        .expect("the semaphore is never closed")
}

pub async fn hash_password(password: String) -> Result<String> {
    let permit = hashing_permit().await;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
    })
    .await
    .context("hashing task failed")?
    .map_err(|e| ApiError::Internal(anyhow::anyhow!("cannot hash password: {e}")))
}

/// Verifies a password against a stored PHC string. With no stored hash (unknown e-mail) a dummy
/// hash is checked, so that both cases take the same time.
pub async fn verify_password(password: String, stored: Option<String>) -> Result<bool> {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let known = stored.is_some();
    let permit = hashing_permit().await;
    let ok = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let stored = stored.unwrap_or_else(|| {
            DUMMY
                .get_or_init(|| {
                    Argon2::default()
                        .hash_password(b"timing equaliser")
                        .map(|h| h.to_string())
                        .unwrap_or_default()
                })
                .clone()
        });
        PasswordHash::new(&stored)
            .map(|h| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &h)
                    .is_ok()
            })
            .unwrap_or(false)
    })
    .await
    .context("verification task failed")?;
    Ok(ok && known)
}

/// The authenticated user making the request.
#[derive(Debug, Clone)]
pub struct Caller {
    pub id: String,
    pub name: String,
    pub email: String,
    pub roles: Vec<Role>,
    /// The token version the request's token carries.
    pub token_version: i64,
}

impl Caller {
    /// The caller as their account is now, read on `conn` in a write's transaction before it
    /// commits: a deactivation or password change committed while the request was in flight (a
    /// slow body, a password being hashed) refuses the write with 401, as it refuses the token
    /// from then on, and a change of roles with 403 (the checks made at the start judged the old
    /// ones).
    pub async fn still(&self, conn: &mut Conn) -> Result<Caller> {
        let now = self.now(conn).await?;
        if now.roles != self.roles {
            return Err(ApiError::PermissionDenied(
                "Your roles changed while this request was being made; send it again if you still may."
                    .into(),
            ));
        }
        Ok(now)
    }

    /// The caller with their account as it is now, read on `conn`: 401 when it was deactivated
    /// or its password changed since the token was issued, else the caller with the roles it now
    /// holds (for a write that judges its permission on them, as a user edit does).
    pub async fn now(&self, conn: &mut Conn) -> Result<Caller> {
        let user = load_user(conn, &self.id).await?;
        judge(self.id.clone(), self.token_version, user.as_ref())
    }

    /// The caller as a record names its author (`createdBy`, `performedBy`, `releasedBy`).
    pub fn reference(&self) -> registry_core::equipment::Reference {
        registry_core::equipment::Reference {
            id: self.id.clone(),
            name: self.name.clone(),
        }
    }

    /// The read cache's key of a GET answer: who asks (and with which roles: a demoted user's
    /// next answer is read afresh, even before the demotion's notification reaches this
    /// instance), what, and `extra` (such as the date the answer depends on).
    pub fn cache_key(&self, uri: &axum::http::Uri, extra: &str) -> String {
        let what = uri.path_and_query().map(|p| p.as_str()).unwrap_or("");
        let roles: Vec<&str> = self.roles.iter().map(|r| r.as_str()).collect();
        format!("{}/{} {extra} {what}", self.id, roles.join(","))
    }
}

impl Caller {
    pub fn is_staff(&self) -> bool {
        is_staff(&self.roles)
    }

    pub fn has(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }

    pub fn require_staff(&self) -> Result<()> {
        if self.is_staff() {
            Ok(())
        } else {
            Err(ApiError::denied())
        }
    }

    /// Passes when the caller holds one of `roles`.
    pub fn require_any(&self, roles: &[Role]) -> Result<()> {
        if roles.iter().any(|r| self.has(*r)) {
            Ok(())
        } else {
            Err(ApiError::denied())
        }
    }
}

/// How far in the future a token's `iat` may be: clock differences between instances.
const ISSUED_AT_SKEW_SECS: i64 = 60;

/// How long past its `exp` a token is still taken (README): clock differences between instances.
const EXPIRY_LEEWAY_SECS: u64 = 5;

fn unauthorized(msg: &str) -> ApiError {
    ApiError::Unauthorized(msg.to_owned())
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let claims = token_claims(parts, state)?;
        let user = state
            .cache
            .user(&state.db, &claims.id, || async {
                load_user(&mut state.db.read().await?, &claims.id).await
            })
            .await?;
        admit(claims, user.as_deref())
    }
}

/// The caller and the read connection their account was checked on, for a GET handler that
/// reads: the answer is read through the same pooled connection, one taken from the pool per
/// request instead of one for the account and another for the answer (docs/benchmarks.md,
/// seventeenth round). Only for requests without a body: a connection held while a slow client
/// sends one would be kept from everyone else.
pub struct Reader {
    pub caller: Caller,
    pub conn: Conn,
}

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let Bearer { claims, mut conn } = Bearer::from_request_parts(parts, state).await?;
        let caller = Bearer::account(state, &mut conn, claims).await?;
        Ok(Reader { caller, conn })
    }
}

/// A valid token and a read connection, the token's account not yet read: for a GET handler
/// that reads the account with its answer ([`crate::store::facilities::view_with_account`]),
/// then admits the caller ([`admit`]) before answering. Only for requests without a
/// body, as [`Reader`].
pub struct Bearer {
    pub claims: Claims,
    pub conn: Conn,
}

impl FromRequestParts<AppState> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        // The token is checked before a connection is taken, so that bad tokens cost none.
        let claims = token_claims(parts, state)?;
        let conn = state.db.read().await?;
        Ok(Bearer { claims, conn })
    }
}

impl Bearer {
    /// The caller of `claims`, their account read on `conn` (or, on SQLite, from the cache).
    pub async fn account(state: &AppState, conn: &mut Conn, claims: Claims) -> Result<Caller> {
        let user = state
            .cache
            .user(&state.db, &claims.id, || load_user(conn, &claims.id))
            .await?;
        admit(claims, user.as_deref())
    }
}

/// The claims of the request's bearer token, when its signature, expiry and issue time hold.
fn token_claims(parts: &Parts, state: &AppState) -> Result<Claims> {
    let header = parts.headers.get(header::AUTHORIZATION).ok_or_else(|| {
        unauthorized("Authentication required: send Authorization: Bearer <token>.")
    })?;
    // Two are ambiguous: a proxy could judge one while the server took the other.
    if parts
        .headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .nth(1)
        .is_some()
    {
        return Err(unauthorized("Send one Authorization header, not several."));
    }
    let token = header
        .to_str()
        .ok()
        // The scheme's name is case-insensitive (RFC 9110 §11.1).
        .and_then(|v| {
            v.get(..7)
                .filter(|scheme| scheme.eq_ignore_ascii_case("bearer "))
                .map(|_| &v[7..])
        })
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| unauthorized("The Authorization header must be: Bearer <token>."))?;
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = EXPIRY_LEEWAY_SECS;
    let claims = jsonwebtoken::decode::<Claims>(token, &state.keys.decoding, &validation)
        .map_err(|e| match e.kind() {
            jsonwebtoken::errors::ErrorKind::ExpiredSignature => {
                unauthorized("The token has expired; log in again.")
            }
            _ => unauthorized("The token is not valid."),
        })?
        .claims;
    // A token from the future was not issued by this server's clock: refuse it rather than
    // let it outlive a later password change (tokens are compared by version, not time).
    if claims.iat > chrono::Utc::now().timestamp() + ISSUED_AT_SKEW_SECS {
        return Err(unauthorized("The token is not valid."));
    }
    Ok(claims)
}

/// The caller of a valid token, if their account (`user`) still exists, is active and has not
/// changed its password since the token was issued.
pub fn admit(claims: Claims, user: Option<&UserAuth>) -> Result<Caller> {
    judge(claims.id, claims.ver, user)
}

/// The caller `id` with a token of version `token_version`, judged by their account `user`.
fn judge(id: String, token_version: i64, user: Option<&UserAuth>) -> Result<Caller> {
    let user = user.ok_or_else(|| unauthorized("The token's user no longer exists."))?;
    if !user.active {
        return Err(unauthorized("This account is deactivated."));
    }
    if token_version < user.token_version {
        return Err(unauthorized(
            "The token was issued before a password change or a deactivation of the account; log in again.",
        ));
    }
    // A later version than the account's: no token this database issued (a restored backup).
    if token_version != user.token_version {
        return Err(unauthorized(
            "The token does not match the account; log in again.",
        ));
    }
    Ok(Caller {
        id,
        name: user.name.clone(),
        email: user.email.clone(),
        roles: user.roles.clone(),
        token_version,
    })
}

async fn load_user(conn: &mut Conn, id: &str) -> Result<Option<UserAuth>> {
    Ok(crate::store::users::by_id(conn, id)
        .await?
        .map(|user| UserAuth {
            name: user.profile.name,
            email: user.profile.email,
            roles: user.profile.roles,
            active: user.profile.active,
            token_version: user.token_version,
        }))
}

/// A [`Caller`] with a staff role (every role but `Cliente`); anyone else is refused with 403
/// before the handler reads the body.
pub struct Staff(pub Caller);

impl FromRequestParts<AppState> for Staff {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let caller = Caller::from_request_parts(parts, state).await?;
        caller.require_staff()?;
        Ok(Staff(caller))
    }
}

/// `Some(caller)` with a valid token, `None` without an Authorization header; a bad token is
/// still refused.
pub struct MaybeCaller(pub Option<Caller>);

impl FromRequestParts<AppState> for MaybeCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        if parts.headers.contains_key(header::AUTHORIZATION) {
            Ok(MaybeCaller(Some(
                Caller::from_request_parts(parts, state).await?,
            )))
        } else {
            Ok(MaybeCaller(None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(token_version: i64) -> UserAuth {
        UserAuth {
            name: "Ana".into(),
            email: "ana@example.com".into(),
            roles: vec![Role::Physicist],
            active: true,
            token_version,
        }
    }

    fn refusal(token_version: i64, user: &UserAuth) -> String {
        match judge("u".into(), token_version, Some(user)) {
            Err(ApiError::Unauthorized(message)) => message,
            other => panic!("expected a 401, got {:?}", other.map(|c| c.id)),
        }
    }

    #[test]
    fn a_token_is_judged_by_its_version_against_the_account() {
        assert!(judge("u".into(), 3, Some(&account(3))).is_ok());
        assert!(refusal(2, &account(3)).contains("issued before a password change"));
        assert!(refusal(4, &account(3)).contains("does not match the account"));
        let mut inactive = account(3);
        inactive.active = false;
        assert!(refusal(3, &inactive).contains("deactivated"));
        assert!(judge("u".into(), 3, None).is_err());
    }
}
