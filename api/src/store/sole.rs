//! PostgreSQL: while this server is the database's only one, its state cache answers score reads
//! of the games it holds without asking the database, as it does on SQLite.
//!
//! Another server on the same database may move a game on at any time, so a server's cache
//! can be trusted alone only while no other server can write. Two advisory locks, in
//! PostgreSQL's own lock table, make that provable:
//!
//! - **present**: every server holds it, shared, on a connection of its own while it runs;
//! - **writes**: every append of a server that is not sole holds it, shared, from its first
//!   write to its commit ([`super::PLAIN_APPENDS`], [`super::PLAIN_APPEND`], and the locked
//!   path).
//!
//! A server that finds itself the only one present takes *writes* exclusively
//! (`pg_try_advisory_lock`, so only when no append of anyone's is in flight), and a *term*
//! begins in its cache ([`super::cache::StateCache::begin_term`]): from then on no other server's
//! append can commit until it lets go, and its own appends skip the lock. It lets go as soon
//! as it sees another server present or an append waiting for *writes* (checked every
//! [`TICK`]): it ends the term first, then unlocks, so no read answered from memory can miss
//! an append another server has acknowledged.
//!
//! Session locks die with the database host. So a term holds only [`LEASE`] after the
//! statement that last found the lock held was sent, unless the next one renews it; a new
//! primary accepts writes seconds after the old one stopped (pg_auto_failover: 6–7 s here),
//! long after the lease ran out. A term never begins on a standby.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection, Row};

use super::commit::Shared;
use super::primary::Follower;

/// The locks' first key (the second names which); the club's positions lock is 7461626.
const CLASS: i32 = 7_461_627;
const PRESENT: i32 = 1;
const WRITES: i32 = 2;

/// How often the sole server looks for others, and a server alone tries to become sole.
const TICK: Duration = Duration::from_millis(50);
/// How long a term holds after the statement that last found the lock held was sent.
const LEASE: Duration = Duration::from_millis(200);
/// Before connecting again after the lock's connection failed.
const AGAIN_AFTER: Duration = Duration::from_millis(500);

/// Whether this server may become sole (`TABLETALLY_SOLE_READS`, on unless `off`).
pub fn wanted() -> bool {
    !matches!(std::env::var("TABLETALLY_SOLE_READS").as_deref(), Ok("off"))
}

/// Keeps the locks on a connection of its own, on the host the pool writes to, for as long as
/// the store lives; a failed connection is made again. A server that may not become sole
/// ([`wanted`]) is still present, so that no other one becomes sole beside it.
pub(super) async fn keep(
    shared: Weak<Shared>,
    options: PgConnectOptions,
    primary: Option<Arc<Follower>>,
    may_be_sole: bool,
) {
    loop {
        let options = match &primary {
            Some(primary) => primary.options(),
            None => options.clone(),
        };
        match tokio::time::timeout(LEASE * 10, PgConnection::connect_with(&options)).await {
            Ok(Ok(mut conn)) => {
                super::keepalive::turn_on(&mut conn).await;
                if let Err(e) = keep_on(&shared, &mut conn, may_be_sole).await {
                    tracing::debug!(error = %e, "the servers' lock connection failed; connecting again");
                }
                // Before anything else: the lock may be gone with the connection.
                if let Some(shared) = shared.upgrade() {
                    shared.cache.end_term();
                }
            }
            Ok(Err(e)) => tracing::debug!(error = %e, "the servers' lock connection failed"),
            Err(_) => tracing::debug!("the servers' lock connection timed out"),
        }
        if shared.strong_count() == 0 {
            return;
        }
        tokio::time::sleep(AGAIN_AFTER).await;
    }
}

/// What a look at the lock table found.
struct Seen {
    /// Servers present, this one included.
    present: i64,
    /// An append is waiting for the writes lock.
    waiting: bool,
    standby: bool,
}

/// Ends (the connection's locks going with it) when the store is gone.
async fn keep_on(
    shared: &Weak<Shared>,
    conn: &mut PgConnection,
    may_be_sole: bool,
) -> Result<(), sqlx::Error> {
    if look(conn).await?.standby {
        return Ok(());
    }
    sqlx::query("SELECT pg_advisory_lock_shared($1, $2)")
        .bind(CLASS)
        .bind(PRESENT)
        .execute(&mut *conn)
        .await?;
    let mut term: Option<u64> = None;
    loop {
        // A server that may not be sole looks only to notice a lost connection.
        tokio::time::sleep(if may_be_sole { TICK } else { TICK * 20 }).await;
        let Some(shared) = shared.upgrade() else {
            return Ok(());
        };
        let cache = &shared.cache;
        let sent = Instant::now();
        let seen = look(conn).await?;
        let alone = may_be_sole && seen.present == 1 && !seen.waiting && !seen.standby;
        match term {
            Some(number) if alone => cache.renew_term(number, sent + LEASE),
            Some(_) => {
                // Nothing is answered from memory from here on; only then may others write.
                cache.end_term();
                term = None;
                sqlx::query("SELECT pg_advisory_unlock($1, $2)")
                    .bind(CLASS)
                    .bind(WRITES)
                    .execute(&mut *conn)
                    .await?;
                tracing::info!(
                    servers = seen.present,
                    append_waiting = seen.waiting,
                    standby = seen.standby,
                    "this server may no longer be the database's only one; score reads ask it again"
                );
            }
            None if alone => {
                let sent = Instant::now();
                let taken: bool = sqlx::query("SELECT pg_try_advisory_lock($1, $2) AS taken")
                    .bind(CLASS)
                    .bind(WRITES)
                    .fetch_one(&mut *conn)
                    .await?
                    .try_get("taken")?;
                if taken {
                    term = Some(cache.begin_term(Some(sent + LEASE)));
                    tracing::info!(
                        "this server is the database's only one; score reads of the games it holds are answered from memory"
                    );
                }
            }
            None => {}
        }
    }
}

/// The servers present, whether an append waits for the writes lock, and whether the host is a
/// standby: one statement, bounded by the lease (a host that does not answer ends the term).
/// Advisory locks are the database's own: servers of other databases on the host are not seen.
async fn look(conn: &mut PgConnection) -> Result<Seen, sqlx::Error> {
    let asked = sqlx::query(
        "SELECT count(*) FILTER (WHERE objid::bigint = $2 AND granted) AS present, \
                coalesce(bool_or(objid::bigint = $3 AND NOT granted), false) AS waiting, \
                pg_is_in_recovery() AS standby \
         FROM pg_locks WHERE locktype = 'advisory' AND classid::bigint = $1 AND objsubid = 2 \
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .bind(i64::from(CLASS))
    .bind(i64::from(PRESENT))
    .bind(i64::from(WRITES))
    .fetch_one(&mut *conn);
    let row = tokio::time::timeout(LEASE, asked)
        .await
        .map_err(|_| sqlx::Error::PoolTimedOut)??;
    Ok(Seen {
        present: row.try_get("present")?,
        waiting: row.try_get("waiting")?,
        standby: row.try_get("standby")?,
    })
}

/// The statement an append of a server that is not sole takes the writes lock with, in its
/// transaction (the locked path; a plain append takes it inside its one statement).
pub(super) const WRITES_LOCK: &str = "SELECT pg_advisory_xact_lock_shared(7461627, 2)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_append_takes_the_writes_lock_the_sole_server_holds() {
        let lock = format!("pg_advisory_xact_lock_shared({CLASS}, {WRITES})");

        assert!(super::super::PLAIN_APPENDS.contains(&lock));
        assert!(super::super::PLAIN_APPEND.contains(&lock));
        assert!(WRITES_LOCK.contains(&lock));
    }
}
