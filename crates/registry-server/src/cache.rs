//! The read cache: answers of the read-heavy GET endpoints and (on SQLite) the token's user row,
//! kept in memory and valid only while no write they depend on has been committed since they were
//! read.
//!
//! Every entry is filed under the stamp ([`Db::stamp`]) of what it was read from, taken *before*
//! its data was read; a committed write advances the stamps of what it changed (on PostgreSQL,
//! every instance's, through `LISTEN/NOTIFY`), after which older entries are never served again.
//! A write announces what it changed ([`crate::changes`]): a facility edit drops that
//! facility's answers and the facility lists (and the due lists when what they show changed), not
//! the other facilities, the due lists or the token users; any other write drops everything.
//! Answers therefore always reflect the latest write this instance has seen. The memory is
//! bounded (`REGISTRY_READ_CACHE_MIB`, least recently used entries go first; 0 turns the cache
//! off).
//!
//! On PostgreSQL another instance's write is seen only when its notification arrives, a moment
//! after its commit. That is acceptable for what a request reads, not for who may make it: the
//! token's user (active, token version, roles) is then always read from the database, so that a
//! deactivation, a demotion or a password change made through any instance holds on every
//! instance from its commit on. On SQLite (one process, whose commits advance the stamps before
//! they return) it stays cached. Answers are cached per caller *and roles*, so that a demoted user
//! is never served an answer cached for the role they no longer hold.

use crate::changes::ReadOf;
use crate::db::{Backend, Db};
use crate::error::Result;
use crate::store::users::UserAuth;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use std::future::Future;
use std::sync::Arc;

#[derive(Clone)]
struct Answer {
    headers: HeaderMap,
    body: Bytes,
}

#[derive(Clone)]
struct AnswerWeight;

impl Weighter<String, Answer> for AnswerWeight {
    fn weight(&self, key: &String, answer: &Answer) -> u64 {
        (key.len() + answer.body.len() + 64 * answer.headers.len() + 128) as u64
    }
}

/// `None` when the cache is off.
pub struct ReadCache(Option<Caches>);

struct Caches {
    answers: Cache<String, Answer, AnswerWeight>,
    users: Cache<String, (u64, Arc<UserAuth>)>,
}

/// Larger answers (huge pages) are not kept: they would push out many small ones.
const LARGEST_ANSWER: usize = 1024 * 1024;

impl ReadCache {
    /// A cache holding up to `megabytes` of answers (0: no cache at all).
    pub fn new(megabytes: u64) -> Self {
        let bytes = megabytes * 1024 * 1024;
        ReadCache((megabytes > 0).then(|| Caches {
            answers: Cache::with_weighter((bytes / 4096) as usize, bytes, AnswerWeight),
            users: Cache::new(10_000),
        }))
    }

    /// Drops every answer and user kept (an idle server gives their memory back).
    pub fn empty(&self) {
        if let Some(caches) = &self.0 {
            caches.answers.clear();
            caches.users.clear();
        }
    }

    /// The user row behind a token: from `load` on PostgreSQL (another instance's commit may not
    /// have been announced here yet), from the cache or `load` on SQLite.
    pub async fn user<F, Fut>(&self, db: &Db, id: &str, load: F) -> Result<Option<Arc<UserAuth>>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Option<UserAuth>>>,
    {
        let caches = match (&self.0, db.backend) {
            (Some(caches), Backend::Sqlite) => caches,
            _ => return Ok(load().await?.map(Arc::new)),
        };
        let generation = db.stamp(ReadOf::Other);
        if let Some((at, user)) = caches.users.get(id)
            && at == generation
        {
            return Ok(Some(user));
        }
        let Some(user) = load().await?.map(Arc::new) else {
            return Ok(None);
        };
        caches
            .users
            .insert(id.to_owned(), (generation, user.clone()));
        Ok(Some(user))
    }

    /// The answer for `key` (which must name everything the answer depends on: the caller, the
    /// path and query, the date for date-dependent answers), read from `read`, from the cache
    /// or from `produce`.
    /// Only successful answers are kept. Concurrent requests for an answer not yet in the cache
    /// wait for the first one to produce it, instead of all reading the database at once.
    pub async fn answer<Fut>(
        &self,
        db: &Db,
        read: ReadOf<'_>,
        key: String,
        produce: Fut,
    ) -> Result<Response>
    where
        Fut: Future<Output = Result<Response>>,
    {
        let Some(Caches { answers: cache, .. }) = &self.0 else {
            return produce.await;
        };
        // Entries of older stamps are never asked for again; they age out.
        let key = format!("{}:{key}", db.stamp(read));
        let guard = match cache.get_value_or_guard_async(&key).await {
            Ok(hit) => return Ok(rebuild(hit.headers, hit.body)),
            Err(guard) => guard,
        };
        let response = produce.await?;
        if response.status() != StatusCode::OK {
            return Ok(response);
        }
        let (parts, body) = response.into_parts();
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .map_err(|e| anyhow::anyhow!("cannot buffer an answer: {e}"))?;
        if body.len() <= LARGEST_ANSWER {
            let _ = guard.insert(Answer {
                headers: parts.headers.clone(),
                body: body.clone(),
            });
        }
        Ok(Response::from_parts(parts, Body::from(body)))
    }
}

fn rebuild(headers: HeaderMap, body: Bytes) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.headers_mut() = headers;
    response
}
