//! PostgreSQL: the versions of the games being read, asked for together.
//!
//! A read answered from the state cache on PostgreSQL must still ask the database for the
//! game's version: another server may have moved the game on, and the database, never the
//! cache, decides the version. One round trip per read bounds the score reads far below what
//! the server can answer, so concurrent asks are gathered: one task takes every ask that is
//! waiting and reads all their versions in one statement. An ask made while a read is in
//! flight waits for the next one, so every answer was read after its ask was made: a reader
//! never gets a version older than an append it has seen acknowledged.

use std::collections::HashMap;

use futures_util::future::join_all;
use sqlx::{PgPool, Row};
use tokio::sync::{mpsc, oneshot};

use super::StoreError;

/// Asks answered by one statement at most.
const MAX_BATCH: usize = 256;
/// Asks waiting at most; past it, callers wait to queue.
const QUEUE: usize = 4096;

struct Ask {
    club: String,
    id: String,
    reply: oneshot::Sender<Result<Option<i64>, StoreError>>,
}

/// The handle reads ask through; the task ends when the handle is dropped.
pub(super) struct VersionReads {
    asks: mpsc::Sender<Ask>,
}

impl VersionReads {
    pub(super) fn start(pool: PgPool) -> Self {
        let (asks, queue) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, queue));
        Self { asks }
    }

    /// The game's stored version, `None` when the club has no such game.
    pub(super) async fn version(&self, club: &str, id: &str) -> Result<Option<i64>, StoreError> {
        let (reply, answer) = oneshot::channel();
        let ask = Ask {
            club: club.to_owned(),
            id: id.to_owned(),
            reply,
        };
        if self.asks.send(ask).await.is_err() {
            return Err(stopped());
        }
        answer.await.unwrap_or_else(|_| Err(stopped()))
    }
}

fn stopped() -> StoreError {
    StoreError::Database(sqlx::Error::PoolClosed)
}

async fn run(pool: PgPool, mut queue: mpsc::Receiver<Ask>) {
    let mut batch = Vec::new();
    while queue.recv_many(&mut batch, MAX_BATCH).await > 0 {
        answer(&pool, std::mem::take(&mut batch)).await;
    }
}

async fn answer(pool: &PgPool, asks: Vec<Ask>) {
    let ids: Vec<&str> = asks.iter().map(|ask| ask.id.as_str()).collect();
    match versions(pool, &ids).await {
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
        // The batch failed (a lost connection, say): each ask is tried on its own, so each
        // gets its own answer or its own error.
        Err(_) => {
            join_all(asks.into_iter().map(|ask| async move {
                let answer = versions(pool, &[ask.id.as_str()]).await.map(|rows| {
                    rows.into_iter()
                        .find(|(_, club, _)| *club == ask.club)
                        .map(|(_, _, version)| version)
                });
                let _ = ask.reply.send(answer.map_err(StoreError::from));
            }))
            .await;
        }
    }
}

/// (id, club, version) of each of `ids` that exists, in any club.
async fn versions(pool: &PgPool, ids: &[&str]) -> Result<Vec<(String, String, i64)>, sqlx::Error> {
    // One primary-key lookup per id, whatever the planner knows of the table: a plain
    // `id = ANY($1)` is planned once for any array, and with missing or old statistics that
    // plan scans the whole table. (`LIMIT 1` keeps the lookup a lookup, not a join.)
    let rows = sqlx::query(
        "SELECT g.id, g.club_id, g.version FROM unnest($1::text[]) AS asked (id) \
         CROSS JOIN LATERAL (SELECT id, club_id, version FROM games WHERE id = asked.id LIMIT 1) AS g",
    )
        .bind(ids)
        .fetch_all(pool)
        .await?;
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
