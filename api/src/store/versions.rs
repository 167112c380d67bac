//! PostgreSQL: the versions of the games being read, asked for together.
//!
//! A read answered from the state cache on PostgreSQL must still ask the database for the
//! game's version: another server may have moved the game on, and the database, never the
//! cache, decides the version. One round trip per read bounds the score reads far below what
//! the server can answer, so concurrent asks are gathered ([`super::gather`]): every answer
//! was read after its ask was made, and a reader never gets a version older than an append it
//! has seen acknowledged. A statement runs on a connection kept as plain appends keep theirs
//! ([`super::lanes`]), sparing the pool's ping after each: one round trip a statement.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::future::join_all;
use sqlx::{PgPool, Row};
use tokio::sync::oneshot;

use super::error::StoreError;
use super::gather::{Gather, Gathered, answered};
use super::lanes::Lanes;

/// The versions of the games `$1` names, in any club: one primary-key lookup per id, whatever
/// the planner knows of the table (a plain `id = ANY($1)` is planned once for any array, and
/// with missing or old statistics that plan scans the whole table; `LIMIT 1` keeps the lookup a
/// lookup, not a join). The ids are read by subscript, not `unnest`, so that one plan serves
/// any number of them ([`super::PLAIN_APPENDS`] says why).
pub const VERSIONS_READ: &str = "SELECT g.id, g.club_id, g.version \
     FROM generate_subscripts($1::text[], 1) AS i \
     CROSS JOIN LATERAL ( \
         SELECT id, club_id, version FROM games WHERE id = ($1::text[])[i] LIMIT 1 \
     ) AS g";

pub(super) struct Ask {
    club: String,
    id: String,
    reply: oneshot::Sender<Result<Option<i64>, StoreError>>,
}

/// The handle reads ask through.
pub(super) struct VersionReads {
    reads: Gathered<Reads>,
}

struct Reads {
    pool: PgPool,
    /// A statement of reads runs on a kept connection, as a plain append does (no ping).
    lanes: Arc<Lanes>,
}

impl VersionReads {
    /// Called inside the runtime the statements for waiting asks are to run on.
    pub(super) fn start(pool: PgPool, lanes: Arc<Lanes>) -> Self {
        Self {
            reads: Gathered::start(Reads { pool, lanes }),
        }
    }

    /// The game's stored version, `None` when the club has no such game.
    pub(super) async fn version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.reads
            .ask(Ask {
                club: club.to_owned(),
                id: id.to_owned(),
                reply,
            })
            .await;
        answered(answer).await
    }
}

impl Gather for Reads {
    type Ask = Ask;
    const MOST: usize = 256;

    async fn answer(&self, asks: Vec<Ask>) {
        let ids: Vec<&str> = asks.iter().map(|ask| ask.id.as_str()).collect();
        match self.versions(&ids).await {
            Ok(rows) => {
                let found: HashMap<String, (String, i64)> = rows
                    .into_iter()
                    .map(|(id, club, version)| (id, (club, version)))
                    .collect();
                for ask in asks {
                    let version = found
                        .get(&ask.id)
                        .filter(|(club, _)| *club == ask.club)
                        .map(|&(_, version)| version);
                    // A caller that gave up (its request was dropped) needs no answer.
                    let _ = ask.reply.send(Ok(version));
                }
            }
            Err(e) if asks.len() == 1 => {
                if let Some(ask) = asks.into_iter().next() {
                    let _ = ask.reply.send(Err(e.into()));
                }
            }
            // The batch failed (a lost connection, say): each ask is tried on its own, so each
            // gets its own answer or its own error.
            Err(_) => {
                join_all(asks.into_iter().map(|ask| async move {
                    let answer = self
                        .versions(&[ask.id.as_str()])
                        .await
                        .map(|rows| version_in_club(rows, &ask.club));
                    let _ = ask.reply.send(answer.map_err(StoreError::from));
                }))
                .await;
            }
        }
    }
}

impl Reads {
    /// (id, club, version) of each of `ids` that exists, in any club.
    async fn versions(&self, ids: &[&str]) -> Result<Vec<(String, String, i64)>, sqlx::Error> {
        let mut lane = self.lanes.take(&self.pool, Lanes::SHARED).await?;
        let rows = sqlx::query(VERSIONS_READ)
            .bind(ids)
            .fetch_all(&mut **lane)
            .await?;
        self.lanes.give_back(lane);
        rows.iter()
            .map(|row| {
                Ok((
                    row.try_get("id")?,
                    row.try_get("club_id")?,
                    row.try_get("version")?,
                ))
            })
            .collect()
    }
}

/// The version of the one game read, if it is the club's.
fn version_in_club(rows: Vec<(String, String, i64)>, club: &str) -> Option<i64> {
    rows.into_iter()
        .find(|(_, owner, _)| owner == club)
        .map(|(_, _, version)| version)
}
