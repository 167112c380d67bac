//! Following the primary, or a standby, of a PostgreSQL pair (docs/deploy.md).
//!
//! `DATABASE_URL` may name several hosts in libpq's form
//! (`postgres://h1:5432,h2:5433/tabletally?target_session_attrs=read-write`). sqlx connects to
//! one host, so the server picks the first host that is not in recovery, points the pool at it,
//! and watches it: when it stops answering or becomes a standby, the hosts are tried again in
//! order until one is the primary, and the pool moves there. Meanwhile:
//! - a new connection that finds a standby is refused ([`Follower::guard`]), so the pool keeps
//!   trying (with the host it is pointed at now) until its acquire timeout;
//! - a connection made before the move is dropped when next acquired, never reused on the old
//!   host (which may be back as a standby);
//! - a request whose connection broke answers 503 with `Retry-After` ([`lost_primary`]); its
//!   transaction either committed whole or not at all, and a retry with the same event ids is
//!   answered as already stored when it had.
//!
//! `TABLETALLY_READ_DATABASE_URL` is followed the same way for the [`Role::Standby`]: the first
//! of its hosts that is in recovery. While none is, the follower is down and the reads it
//! would serve go to the primary ([`Follower::is_up`]).

use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::{Connection, Executor};
use tokio::sync::Notify;

/// How often the watcher asks the followed host whether it still has its role.
const CHECK_EVERY: Duration = Duration::from_millis(500);
/// How long one host may take to answer whether it is the primary.
const HOST_TIMEOUT: Duration = Duration::from_secs(2);
/// Between two rounds over the hosts while none has the role (a failover under way).
const ROUND_PAUSE: Duration = Duration::from_millis(250);
/// How long start-up waits for a primary among the hosts.
const START_WAIT: Duration = Duration::from_secs(60);

/// What the followed host must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Not in recovery: it takes writes.
    Primary,
    /// In recovery: a standby replaying the primary's log.
    Standby,
}

impl Role {
    fn is(self, in_recovery: bool) -> bool {
        in_recovery == (self == Role::Standby)
    }

    fn name(self) -> &'static str {
        match self {
            Role::Primary => "primary",
            Role::Standby => "standby",
        }
    }
}

/// The hosts of a URL, and which one the pool follows.
pub struct Follower {
    role: Role,
    hosts: Vec<PgConnectOptions>,
    state: Mutex<Followed>,
    /// Wakes the watcher before its next check (a new connection found the wrong role).
    check_now: Notify,
    /// Times the pool moved to a host after losing one (`/metrics`).
    failovers: std::sync::atomic::AtomicU64,
    /// Milliseconds spent without a host in the role, ended episodes only (`/metrics`).
    without_ms: std::sync::atomic::AtomicU64,
}

/// What `/readyz` and `/metrics` tell of the followed host.
#[derive(Debug, Clone, PartialEq)]
pub struct FollowerStatus {
    /// `host:port` followed now.
    pub host: String,
    /// It had the role at the last check.
    pub up: bool,
    /// Moves to a host after one was lost, since the server started.
    pub failovers: u64,
    /// Time without a host in the role since the server started, the episode under way included.
    pub without: Duration,
}

#[derive(Clone, Copy)]
struct Followed {
    host: usize,
    /// When the pool moved to `host`: connections older than that are dropped.
    since: Instant,
    /// `host` had the role at the last check.
    up: bool,
    /// When the host was found lost (while none is followed in its place).
    lost_at: Option<Instant>,
}

impl Follower {
    /// The primary of a `DATABASE_URL`; `None` for a URL with one host (nothing to follow).
    pub fn primary_of(url: &str) -> Result<Option<Self>, sqlx::Error> {
        let hosts = hosts(url)?;
        Ok((hosts.len() > 1).then(|| Self::new(Role::Primary, hosts)))
    }

    /// A standby among the hosts of `TABLETALLY_READ_DATABASE_URL` (one or several), whose
    /// connections may only read. Down until the watcher finds one.
    pub fn standby_of(url: &str) -> Result<Self, sqlx::Error> {
        let hosts = hosts(url)?
            .into_iter()
            .map(|h| h.options([("default_transaction_read_only", "on")]))
            .collect();
        Ok(Self::new(Role::Standby, hosts))
    }

    /// A primary is taken as up (start-up waits for it); a standby is down until found.
    fn new(role: Role, hosts: Vec<PgConnectOptions>) -> Self {
        Self {
            role,
            hosts,
            state: Mutex::new(Followed {
                host: 0,
                since: Instant::now(),
                up: role == Role::Primary,
                lost_at: None,
            }),
            check_now: Notify::new(),
            failovers: Default::default(),
            without_ms: Default::default(),
        }
    }

    /// The host followed now, whether it is up, and the failovers and time without one so far.
    pub fn status(&self) -> FollowerStatus {
        use std::sync::atomic::Ordering;
        let followed = self.followed();
        let ended = Duration::from_millis(self.without_ms.load(Ordering::Relaxed));
        FollowerStatus {
            host: self.name(followed.host),
            up: followed.up,
            failovers: self.failovers.load(Ordering::Relaxed),
            without: ended + followed.lost_at.map_or(Duration::ZERO, |t| t.elapsed()),
        }
    }

    fn followed(&self) -> Followed {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pool moved to a host (or to the same one again) after `t`: connections made before
    /// are dropped.
    pub(super) fn moved_after(&self, t: std::time::Instant) -> bool {
        self.followed().since > t
    }

    /// Whether the followed host had the role at the last check.
    pub fn is_up(&self) -> bool {
        self.followed().up
    }

    /// The options of the host followed now (the first host before any check).
    pub fn options(&self) -> PgConnectOptions {
        self.hosts[self.followed().host].clone()
    }

    /// `host:port` of every host, in order (for the log).
    fn name(&self, host: usize) -> String {
        let options = &self.hosts[host];
        format!("{}:{}", options.get_host(), options.get_port())
    }

    /// Waits (up to a minute) for one of the hosts to have the role; the options to connect
    /// the pool with.
    pub async fn find_at_start(&self) -> Result<PgConnectOptions, sqlx::Error> {
        let deadline = Instant::now() + START_WAIT;
        loop {
            if let Some((host, _)) = self.first_with_role().await {
                self.move_to(host, None);
                return Ok(self.hosts[host].clone());
            }
            if Instant::now() > deadline {
                return Err(sqlx::Error::Configuration(
                    format!(
                        "none of the hosts {} is a {} (a primary accepts writes)",
                        (0..self.hosts.len())
                            .map(|h| self.name(h))
                            .collect::<Vec<_>>()
                            .join(", "),
                        self.role.name(),
                    )
                    .into(),
                ));
            }
            tokio::time::sleep(ROUND_PAUSE).await;
        }
    }

    /// Makes the watcher check the followed host now.
    pub fn check_now(&self) {
        self.check_now.notify_one();
    }

    /// The pool options that keep its connections on a host with the role: a new connection
    /// to a host without it is refused, and a connection made before the pool last moved is
    /// dropped ([`checked_on_acquire`]).
    pub fn guard(self: &Arc<Self>, options: PgPoolOptions) -> PgPoolOptions {
        let on_connect = self.clone();
        checked_on_acquire(options, Some(self.clone())).after_connect(move |conn, _| {
            let follower = on_connect.clone();
            Box::pin(async move {
                super::keepalive::turn_on(conn).await;
                if !follower.role.is(in_recovery(conn).await?) {
                    follower.check_now.notify_one();
                    return Err(sqlx::Error::Configuration(
                        format!(
                            "this host is no {} now; looking for one",
                            follower.role.name()
                        )
                        .into(),
                    ));
                }
                Ok(())
            })
        })
    }

    /// Asks the followed host every [`CHECK_EVERY`] (on a connection of its own) whether it
    /// still has the role; when not, it is down until the first host that has the role is
    /// found and the pool moved there. Ends with the pool.
    pub async fn watch(self: Arc<Self>, pool: PgPool) {
        let mut conn: Option<PgConnection> = None;
        loop {
            if conn.is_some() {
                tokio::select! {
                    _ = self.check_now.notified() => {}
                    _ = tokio::time::sleep(CHECK_EVERY) => {}
                }
            }
            if pool.is_closed() {
                return;
            }
            if let Some(c) = conn.as_mut()
                && matches!(
                    tokio::time::timeout(HOST_TIMEOUT, in_recovery(c)).await,
                    Ok(Ok(in_recovery)) if self.role.is(in_recovery)
                )
            {
                continue;
            }
            let lost = self.followed();
            if conn.take().is_some() {
                let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                state.up = false;
                state.lost_at = Some(Instant::now());
                drop(state);
                tracing::warn!(host = %self.name(lost.host), role = self.role.name(), "the database host stopped answering in its role; looking for another");
            }
            let started = Instant::now();
            loop {
                if pool.is_closed() {
                    return;
                }
                if let Some((host, c)) = self.first_with_role().await {
                    self.move_to(host, Some(&pool));
                    tracing::warn!(
                        host = %self.name(host),
                        role = self.role.name(),
                        after_ms = started.elapsed().as_millis() as u64,
                        "following the database host"
                    );
                    conn = Some(c);
                    break;
                }
                tokio::time::sleep(ROUND_PAUSE).await;
            }
        }
    }

    /// The first host, in the URL's order, that has the role; with a connection to it.
    async fn first_with_role(&self) -> Option<(usize, PgConnection)> {
        for (host, options) in self.hosts.iter().enumerate() {
            let attempt = async {
                let mut conn = PgConnection::connect_with(options).await?;
                let has_role = self.role.is(in_recovery(&mut conn).await?);
                Ok::<_, sqlx::Error>(has_role.then_some(conn))
            };
            if let Ok(Ok(Some(conn))) = tokio::time::timeout(HOST_TIMEOUT, attempt).await {
                return Some((host, conn));
            }
        }
        None
    }

    /// Points the pool (if given) at `host`, up; connections made before now are dropped on
    /// their next acquire, even when the host is the same (its connections broke).
    fn move_to(&self, host: usize, pool: Option<&PgPool>) {
        use std::sync::atomic::Ordering;
        if let Some(pool) = pool {
            pool.set_connect_options(self.hosts[host].clone());
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(lost_at) = state.lost_at {
            self.failovers.fetch_add(1, Ordering::Relaxed);
            let without = u64::try_from(lost_at.elapsed().as_millis()).unwrap_or(u64::MAX);
            self.without_ms.fetch_add(without, Ordering::Relaxed);
        }
        *state = Followed {
            host,
            since: Instant::now(),
            up: true,
            lost_at: None,
        };
    }
}

/// A pooled connection idle for this long is asked whether it still answers before it is
/// lent; a busier one is lent as it is.
pub(super) const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// The check a PostgreSQL pool makes before lending a connection. sqlx's own pings every
/// connection on every acquire: one more round trip a request (BENCHMARKS.md, "No ping before
/// each lent connection"). Only a connection that sat idle can have
/// been cut meanwhile unnoticed (a restart, an idle timeout): it is pinged; one in use a moment
/// ago is not, and if it broke since, its request answers a retryable 503 and sqlx's check on
/// release drops it. With a `follower`, a connection made before the pool last moved to another
/// host is dropped, whatever its idle time.
pub fn checked_on_acquire(
    options: PgPoolOptions,
    follower: Option<Arc<Follower>>,
) -> PgPoolOptions {
    options
        .test_before_acquire(false)
        .before_acquire(move |conn, meta| {
            let moved_since = follower
                .as_ref()
                .is_some_and(|f| meta.age > f.followed().since.elapsed());
            Box::pin(async move {
                if moved_since {
                    return Ok(false);
                }
                if meta.idle_for >= PING_AFTER_IDLE {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
}

async fn in_recovery(conn: &mut PgConnection) -> Result<bool, sqlx::Error> {
    let row = conn.fetch_one("SELECT pg_is_in_recovery()").await?;
    sqlx::Row::try_get(&row, 0)
}

/// The options of each host of a URL, one or several. The hosts share everything else the
/// URL says; `target_session_attrs` is what [`Follower`] does, so it is taken out (sqlx does
/// not know it).
fn hosts(url: &str) -> Result<Vec<PgConnectOptions>, sqlx::Error> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Ok(vec![bounded(PgConnectOptions::from_str(url)?)]);
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let (userinfo, hostlist) = match authority.rfind('@') {
        Some(at) => (&authority[..=at], &authority[at + 1..]),
        None => ("", authority),
    };
    let tail = without_param(tail, "target_session_attrs");
    hostlist
        .split(',')
        .map(|host| {
            if host.is_empty() && hostlist.contains(',') {
                return Err(sqlx::Error::Configuration(
                    format!("the database URL names an empty host in {hostlist:?}").into(),
                ));
            }
            PgConnectOptions::from_str(&format!("{scheme}://{userinfo}{host}{tail}")).map(bounded)
        })
        .collect()
}

/// Every session bounds its waits, so that a request is answered (503, to be sent again) in
/// seconds rather than held: a lock held by another session for 5 s, or a transaction a lost
/// client left open for 30 s, ends. Sent with the connection's start, at no round trip.
pub(super) fn bounded(options: PgConnectOptions) -> PgConnectOptions {
    options.options([
        ("lock_timeout", "5s"),
        ("idle_in_transaction_session_timeout", "30s"),
    ])
}

/// The URL's path and query without the query parameter `name`.
fn without_param(tail: &str, name: &str) -> String {
    let Some((path, query)) = tail.split_once('?') else {
        return tail.to_owned();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some(name))
        .collect();
    if kept.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

/// Whether an error says the database the request was using went away or stopped being the
/// primary (a failover, a restart): the request may be sent again.
pub fn lost_primary(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // 08: connection exception; 57P01–57P03: the server is shutting down, crashed, or
            // not yet accepting connections; 25006: a read-only transaction (a standby now).
            code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03" | "25006")
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_with_two_hosts_gives_each_host_the_same_user_database_and_options() {
        let hosts = hosts(
            "postgres://ann:secret@10.0.0.1:5432,db2.example:5433/tabletally?target_session_attrs=read-write&sslmode=disable",
        )
        .unwrap();

        let seen: Vec<_> = hosts
            .iter()
            .map(|h| {
                (
                    h.get_host().to_owned(),
                    h.get_port(),
                    h.get_username().to_owned(),
                    h.get_database().map(str::to_owned),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (
                    "10.0.0.1".into(),
                    5432,
                    "ann".into(),
                    Some("tabletally".into())
                ),
                (
                    "db2.example".into(),
                    5433,
                    "ann".into(),
                    Some("tabletally".into())
                ),
            ]
        );
    }

    #[test]
    fn a_url_with_one_host_has_no_primary_to_follow_but_a_standby_to_watch() {
        let url = "postgres://postgres@127.0.0.1:5432/tabletally";

        assert!(Follower::primary_of(url).unwrap().is_none());
        let standby = Follower::standby_of(url).unwrap();
        assert_eq!(standby.hosts.len(), 1);
        assert!(
            !standby.is_up(),
            "down until the watcher finds it in recovery"
        );
    }

    #[test]
    fn a_broken_connection_and_a_standby_refusing_a_write_are_a_lost_primary_but_a_timeout_is_not()
    {
        let reset = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionReset));

        assert!(lost_primary(&reset));
        assert!(lost_primary(&sqlx::Error::WorkerCrashed));
        assert!(!lost_primary(&sqlx::Error::PoolTimedOut));
        assert!(!lost_primary(&sqlx::Error::RowNotFound));
    }

    #[test]
    fn target_session_attrs_is_taken_out_and_the_other_parameters_kept() {
        assert_eq!(
            without_param(
                "/db?target_session_attrs=read-write",
                "target_session_attrs"
            ),
            "/db"
        );
        assert_eq!(
            without_param(
                "/db?sslmode=disable&target_session_attrs=read-write&application_name=x",
                "target_session_attrs"
            ),
            "/db?sslmode=disable&application_name=x"
        );
    }
}
