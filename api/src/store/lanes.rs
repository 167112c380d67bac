//! PostgreSQL connections that writes and score reads keep from one request to the next: plain
//! appends, the score reads' version statements ([`super::versions`]), and the transactions of
//! the other appends and of game creations. sqlx pings every connection given back to its pool
//! (a round trip, and a wake-up of its backend, per request). A lane is a pooled connection
//! kept out of the pool between requests: taken and given back without a word to the database.
//! What the pool's own check does on lending is kept: a lane idle for a second is handed back
//! to the pool (which pings it before lending it again), and a lane made before the pool moved
//! to another host is dropped.
//!
//! At most [`MOST_LANES`] are in use at once, taken by club in rotation ([`super::turns`]), first
//! come, first served within a club: more transactions at once only make the cores switch between
//! more of PostgreSQL's backends (BENCHMARKS.md, "Writes take turns on kept connections").

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::primary::{Follower, PING_AFTER_IDLE};
use super::turns::{Turn, Turns};
use sqlx::pool::PoolConnection;
use sqlx::{PgPool, Postgres};

/// At most this many lanes are in use, or kept, at once; the pool's other connections serve
/// the rest (reads of lists, statistics, imports).
const MOST_LANES: usize = 8;

/// A connection kept out of the pool.
struct Kept {
    connection: PoolConnection<Postgres>,
    /// When the pool lent it: a lane older than the pool's last move is dropped.
    made: Instant,
    /// When a request last gave it back.
    used: Instant,
}

/// A lane in use: its connection, and its turn among the lanes, passed on when it is given
/// back or dropped.
pub(super) struct Lane {
    kept: Kept,
    _turn: Turn,
}

impl std::ops::Deref for Lane {
    type Target = PoolConnection<Postgres>;
    fn deref(&self) -> &Self::Target {
        &self.kept.connection
    }
}

impl std::ops::DerefMut for Lane {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.kept.connection
    }
}

pub(super) struct Lanes {
    free: Mutex<Vec<Kept>>,
    turns: Arc<Turns>,
    follower: Option<Arc<Follower>>,
}

impl Lanes {
    /// The line of work done for many clubs at once (batched plain appends, version reads): no
    /// club's id is empty.
    pub(super) const SHARED: &str = "";

    pub(super) fn new(follower: Option<Arc<Follower>>) -> Self {
        Self {
            free: Mutex::new(Vec::new()),
            turns: Turns::new(MOST_LANES),
            follower,
        }
    }

    /// A lane still fit to use, or a connection lent by the pool (with the pool's checks), once
    /// it is `club`'s turn ([`Lanes::SHARED`] for work done for many clubs at once).
    pub(super) async fn take(&self, pool: &PgPool, club: &str) -> Result<Lane, sqlx::Error> {
        let turn = self.turns.take(club).await;
        loop {
            let kept = self
                .free
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            let Some(kept) = kept else { break };
            let moved = self
                .follower
                .as_ref()
                .is_some_and(|f| f.moved_after(kept.made));
            if !moved && kept.used.elapsed() < PING_AFTER_IDLE {
                return Ok(Lane { kept, _turn: turn });
            }
            // Dropped: back to the pool, through sqlx's check on release.
        }
        let now = Instant::now();
        Ok(Lane {
            kept: Kept {
                connection: pool.acquire().await?,
                made: now,
                used: now,
            },
            _turn: turn,
        })
    }

    /// Keeps a lane whose request came back whole, then passes its turn on; one that failed,
    /// or was dropped with its request, goes back to the pool instead, whose check on release
    /// settles it.
    pub(super) fn give_back(&self, lane: Lane) {
        let Lane { mut kept, _turn } = lane;
        kept.used = Instant::now();
        self.free
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(kept);
    }
}
