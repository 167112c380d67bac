//! Wake-ups between servers on one PostgreSQL: an append commits alone, with no
//! `NOTIFY` in its transaction (a notifying commit takes PostgreSQL's one notification-queue
//! lock, so notifying commits wait for each other). After its commits, each server sends at
//! most one wake-up every [`COALESCE`], outside any append's transaction, carrying the highest
//! position it committed. A server woken by another reads what its followers missed from the
//! tables ([`crate::live::Live::woken`]), so a merged wake-up costs nothing, and a lost one
//! only happens with a lost `LISTEN` connection, after which every follower reads again.
//!
//! A server alone on its database sends none: every second it counts the servers listening
//! (`pg_stat_activity`, by the listeners' `application_name`), and when another one appears it
//! wakes it at once, so that nothing committed before it was counted waits for a later commit.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, watch};

/// The shortest time between two wake-ups of one server: commits in between share the next.
pub const COALESCE: Duration = Duration::from_millis(3);
/// After a wake-up that could not be sent (a failover, say): when to try again.
const RETRY: Duration = Duration::from_millis(100);
/// How often a server counts the servers listening.
const COUNT_EVERY: Duration = Duration::from_secs(1);

/// The `application_name` of every server's `LISTEN` connection.
pub const LISTENER: &str = "tabletally-listen";

/// What this server committed since its last wake-up.
pub struct Wakeups {
    /// This server's name in its wake-ups (it ignores its own).
    server: String,
    highest: AtomicI64,
    pending: Notify,
}

impl Default for Wakeups {
    fn default() -> Self {
        Self {
            server: format!("server:{}", uuid::Uuid::new_v4().simple()),
            highest: AtomicI64::new(0),
            pending: Notify::new(),
        }
    }
}

/// A wake-up read from the channel.
#[derive(Debug, PartialEq, Eq)]
pub enum Heard<'a> {
    /// Another server committed, up to this position.
    Committed { position: i64 },
    /// This server's own wake-up.
    Own,
    /// A server of the version before wake-ups: `<game id> <version>` of one commit.
    Game { game: &'a str, version: i64 },
    /// Nothing a server sends.
    Unknown,
}

impl Wakeups {
    /// A commit up to `position` (its last event's): the next wake-up carries it.
    pub fn committed(&self, position: i64) {
        self.highest.fetch_max(position, Ordering::Relaxed);
        self.pending.notify_one();
    }

    /// What a payload on the channel says.
    pub fn heard<'a>(&self, payload: &'a str) -> Heard<'a> {
        let mut parts = payload.split(' ');
        let (Some(who), Some(Ok(number)), None) = (
            parts.next(),
            parts.next().map(str::parse::<i64>),
            parts.next(),
        ) else {
            return Heard::Unknown;
        };
        if who == self.server {
            Heard::Own
        } else if who.starts_with("server:") {
            Heard::Committed { position: number }
        } else {
            Heard::Game {
                game: who,
                version: number,
            }
        }
    }

    /// Sends the wake-ups, each as its own statement on `pool`, while another server listens,
    /// until the server closes.
    pub async fn send(
        &self,
        pool: sqlx::PgPool,
        channel: &str,
        mut closing: watch::Receiver<bool>,
    ) {
        let mut listeners = 0;
        let mut count = tokio::time::interval(COUNT_EVERY);
        count.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = closing.changed() => return,
                _ = count.tick() => {
                    let now = count_listeners(&pool).await.unwrap_or(listeners);
                    let appeared = now > listeners;
                    listeners = now;
                    // A server that appeared may have missed commits made before it was counted.
                    if !(appeared && listeners > 1) {
                        continue;
                    }
                }
                _ = self.pending.notified() => {
                    if listeners <= 1 {
                        continue;
                    }
                }
            }
            let payload = format!("{} {}", self.server, self.highest.load(Ordering::Relaxed));
            let sent = sqlx::query("SELECT pg_notify($1, $2)")
                .bind(channel)
                .bind(&payload)
                .execute(&pool)
                .await;
            let pause = match sent {
                Ok(_) => COALESCE,
                Err(e) => {
                    tracing::warn!(error = %e, "live: a wake-up for the other servers was not sent; retrying");
                    self.pending.notify_one();
                    RETRY
                }
            };
            tokio::select! {
                _ = closing.changed() => return,
                _ = tokio::time::sleep(pause) => {}
            }
        }
    }
}

/// The servers listening on the database (this one among them once it listens).
async fn count_listeners(pool: &sqlx::PgPool) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity \
         WHERE application_name = $1 AND datname = current_database()",
    )
    .bind(LISTENER)
    .fetch_one(pool)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_hears_others_wake_ups_ignores_its_own_and_reads_the_older_form() {
        let ours = Wakeups::default();
        let theirs = Wakeups::default();
        let own = format!("{} 12", ours.server);
        let other = format!("{} 40", theirs.server);

        assert_eq!(ours.heard(&own), Heard::Own);
        assert_eq!(ours.heard(&other), Heard::Committed { position: 40 });
        assert_eq!(
            ours.heard("5f0c6f1e-1d7a-4a51-9b8e-3a1a2b3c4d5e 7"),
            Heard::Game {
                game: "5f0c6f1e-1d7a-4a51-9b8e-3a1a2b3c4d5e",
                version: 7
            }
        );
        assert_eq!(ours.heard("nonsense"), Heard::Unknown);
        assert_eq!(ours.heard("a b c"), Heard::Unknown);
    }

    #[tokio::test]
    async fn commits_between_two_wake_ups_share_the_next_one_with_the_highest_position() {
        let wakeups = Wakeups::default();

        wakeups.committed(10);
        wakeups.committed(30);
        wakeups.committed(20);

        // One permit, however many commits: one wake-up, carrying 30.
        wakeups.pending.notified().await;
        assert_eq!(wakeups.highest.load(Ordering::Relaxed), 30);
        let again =
            tokio::time::timeout(Duration::from_millis(20), wakeups.pending.notified()).await;
        assert!(again.is_err(), "no second wake-up is pending");
    }
}
