//! PostgreSQL connections that one-statement requests keep from one to the next: plain appends
//! and the score reads' version statements ([`super::versions`]). sqlx pings every connection
//! given back to its pool (a round trip, and a wake-up of its backend, per request); such a
//! request is one statement, so that ping was a second round trip for each. A lane is a
//! pooled connection kept out of the pool between those statements: taken and given back
//! without a word to the database. What the pool's own check does on lending is kept: a lane
//! idle for a second is handed back to the pool (which pings it before lending it again), and a
//! lane made before the pool moved to another host is dropped.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use sqlx::pool::PoolConnection;
use sqlx::{PgPool, Postgres};

use super::primary::{Follower, PING_AFTER_IDLE};

/// At most this many lanes wait between statements; the pool's other connections serve the rest.
const MOST_LANES: usize = 8;

pub(super) struct Lane {
    connection: PoolConnection<Postgres>,
    /// When the pool lent it: a lane older than the pool's last move is dropped.
    made: Instant,
    /// When a statement last gave it back.
    used: Instant,
}

impl std::ops::Deref for Lane {
    type Target = PoolConnection<Postgres>;
    fn deref(&self) -> &Self::Target {
        &self.connection
    }
}

impl std::ops::DerefMut for Lane {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.connection
    }
}

pub(super) struct Lanes {
    free: Mutex<Vec<Lane>>,
    follower: Option<Arc<Follower>>,
}

impl Lanes {
    pub(super) fn new(follower: Option<Arc<Follower>>) -> Self {
        Self {
            free: Mutex::new(Vec::new()),
            follower,
        }
    }

    /// A lane still fit to use, or a connection lent by the pool (with the pool's checks).
    pub(super) async fn take(&self, pool: &PgPool) -> Result<Lane, sqlx::Error> {
        loop {
            let lane = self
                .free
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            let Some(lane) = lane else { break };
            let moved = self
                .follower
                .as_ref()
                .is_some_and(|f| f.moved_after(lane.made));
            if !moved && lane.used.elapsed() < PING_AFTER_IDLE {
                return Ok(lane);
            }
            // Dropped: back to the pool, through sqlx's check on release.
        }
        let now = Instant::now();
        Ok(Lane {
            connection: pool.acquire().await?,
            made: now,
            used: now,
        })
    }

    /// Keeps a lane whose statement came back whole; one that failed, or was dropped with its
    /// request, goes back to the pool instead, whose check on release settles it.
    pub(super) fn give_back(&self, mut lane: Lane) {
        lane.used = Instant::now();
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        if free.len() < MOST_LANES {
            free.push(lane);
        }
    }
}
