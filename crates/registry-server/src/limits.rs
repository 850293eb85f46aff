//! Per-client-address and per-address rate limits for the endpoints anyone may call (login,
//! registration without a token, password recovery), in memory (GCRA, `governor`). They bound
//! what one client can try; the per-account login rule (`store::users::reserve_login`) is in
//! the database so that it holds across instances.

use crate::config::Limits;
use crate::error::{ApiError, Result};
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Limiters {
    /// Failed logins per client address (successful ones take nothing).
    pub login_failures: FailedLogins,
    /// Logins of one account are checked one at a time (see [`Limiters::account_turn`]).
    account_turns: Vec<tokio::sync::Mutex<()>>,
    pub register: DefaultKeyedRateLimiter<IpAddr>,
    pub recovery: DefaultKeyedRateLimiter<IpAddr>,
    /// Security e-mails (recovery codes, "someone registered with your address") per address.
    pub mails: DefaultKeyedRateLimiter<String>,
    /// E-mail changes a `Cliente` makes to their own account, per account: each answer says
    /// whether the new address is taken, which must not become an unlimited way of asking
    /// whether an address has an account ([`EMAIL_CHANGES_PER_HOUR`]).
    pub email_changes: DefaultKeyedRateLimiter<String>,
}

/// E-mail changes a `Cliente` may make to their own account at once, after which one an hour
/// (staff list every user anyway). In memory, per instance, as the per-client limits.
pub const EMAIL_CHANGES_PER_HOUR: u32 = 5;

/// Stripes of account turns: enough that unrelated accounts seldom wait for each other.
const ACCOUNT_STRIPES: usize = 64;

fn at_least_one(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

impl Limiters {
    pub fn new(l: &Limits) -> Self {
        let per_hour = |n| Quota::per_hour(at_least_one(n));
        Limiters {
            login_failures: FailedLogins {
                allowance: DefaultKeyedRateLimiter::dashmap(Quota::per_minute(at_least_one(
                    l.login_failures_per_client_per_minute,
                ))),
                blocked: Mutex::default(),
            },
            account_turns: (0..ACCOUNT_STRIPES)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            register: DefaultKeyedRateLimiter::dashmap(per_hour(l.register_per_client_per_hour)),
            recovery: DefaultKeyedRateLimiter::dashmap(per_hour(l.recovery_per_client_per_hour)),
            mails: DefaultKeyedRateLimiter::dashmap(per_hour(l.mails_per_address_per_hour)),
            // Five at once, then one an hour: a GCRA quota of five an hour would let one more
            // through every twelve minutes after the first five.
            email_changes: DefaultKeyedRateLimiter::dashmap(
                Quota::with_period(std::time::Duration::from_secs(3600))
                    .expect("a period")
                    .allow_burst(at_least_one(EMAIL_CHANGES_PER_HOUR)),
            ),
        }
    }

    /// Waits for the turn of `email`'s account: its logins are checked one at a time (in this
    /// instance), so parallel guesses cannot all pass one reading of its failure count, and
    /// parallel *successful* logins (a script's workers sharing an account) never add up to a
    /// burst of failures, since each clears the count before the next is counted. Accounts share
    /// a fixed number of stripes; argon2 runs at most one hash per core anyway.
    pub async fn account_turn(&self, email: &str) -> tokio::sync::MutexGuard<'_, ()> {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(email);
        self.account_turns[(hash % ACCOUNT_STRIPES as u64) as usize]
            .lock()
            .await
    }

    /// Forgets keys whose allowance is full again, so the maps hold only recent clients.
    pub fn forget_idle(&self) {
        self.login_failures.forget_idle();
        for limiter in [&self.register, &self.recovery] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        for limiter in [&self.mails, &self.email_changes] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// Takes one from `key`'s allowance, or answers 429 with the wait.
pub fn take<K: Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> Result<()> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        ApiError::RateLimited {
            retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
        }
    })
}

/// Failed logins per client address. Only failures take from the allowance, so that many people
/// behind one address (an office, a proxy, a test suite) may log in as often as they like; a
/// client that has used up its allowance of failures is refused every login (429, even with the
/// right password) until the allowance refills.
pub struct FailedLogins {
    allowance: DefaultKeyedRateLimiter<IpAddr>,
    /// Clients refused until the given time.
    blocked: Mutex<HashMap<IpAddr, Instant>>,
}

impl FailedLogins {
    /// 429 while `client` is refused.
    pub fn check(&self, client: &ClientAddr) -> Result<()> {
        let Some(ip) = &client.0 else { return Ok(()) };
        let until = self.blocked.lock().expect("not poisoned").get(ip).copied();
        match until.map(|t| t.saturating_duration_since(Instant::now())) {
            Some(wait) if !wait.is_zero() => Err(ApiError::RateLimited {
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            }),
            _ => Ok(()),
        }
    }

    /// Counts a failed login of `client`; the failure that uses up the allowance is answered 429
    /// and refuses the client until the allowance refills.
    pub fn failed(&self, client: &ClientAddr) -> Result<()> {
        let Some(ip) = &client.0 else { return Ok(()) };
        take(&self.allowance, ip).inspect_err(|e| {
            if let ApiError::RateLimited { retry_after_secs } = e {
                let until = Instant::now() + Duration::from_secs(*retry_after_secs);
                self.blocked
                    .lock()
                    .expect("not poisoned")
                    .insert(*ip, until);
            }
        })
    }

    fn forget_idle(&self) {
        self.allowance.retain_recent();
        self.allowance.shrink_to_fit();
        let now = Instant::now();
        self.blocked
            .lock()
            .expect("not poisoned")
            .retain(|_, until| *until > now);
    }
}

/// Whether `key` still has allowance (taking one when it has).
pub fn allowed<K: Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> bool {
    limiter.check_key(key).is_ok()
}

/// The client's address as the limits see it: IPv4 (also when mapped into IPv6), or the /64
/// network of an IPv6 address, since one host usually holds a whole /64. `None` when the server
/// was not given the peer address (the router used without `Application`).
pub struct ClientAddr(pub Option<IpAddr>);

impl ClientAddr {
    /// Takes one from this client's allowance in `limiter`.
    pub fn take(&self, limiter: &DefaultKeyedRateLimiter<IpAddr>) -> Result<()> {
        match &self.0 {
            Some(ip) => take(limiter, ip),
            None => Ok(()),
        }
    }
}

pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> std::result::Result<Self, Infallible> {
        Ok(ClientAddr(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| client_key(addr.ip())),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_are_keyed_by_their_network() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn the_allowance_runs_out_and_says_how_long_to_wait() {
        let limiter = DefaultKeyedRateLimiter::dashmap(Quota::per_hour(at_least_one(2)));
        let key: IpAddr = "192.0.2.1".parse().unwrap();
        take(&limiter, &key).unwrap();
        take(&limiter, &key).unwrap();
        match take(&limiter, &key) {
            Err(ApiError::RateLimited { retry_after_secs }) => {
                assert!((1..=1800).contains(&retry_after_secs))
            }
            other => panic!("{other:?}"),
        }
        assert!(allowed(&limiter, &"192.0.2.2".parse().unwrap()));
    }
}
