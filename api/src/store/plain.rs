//! PostgreSQL: plain appends written together.
//!
//! A plain append (every round but a game's last, `PostgresStore::write_at_version`) is one
//! statement in its own transaction. PostgreSQL spends most of such an append on what every
//! statement pays whatever it writes — the commit and its WAL flush, the socket, starting the
//! executor — so concurrent plain appends are gathered ([`super::gather`]): the ones made while
//! a statement is in flight are written by the next, one commit for all of them (group commit,
//! as SQLite's writer does). A lone append is written at once, by a statement made for one
//! ([`PLAIN_APPEND`]: the gathered one costs PostgreSQL more for a single append).
//!
//! Each append in a statement still applies only while its game's row is at the version it
//! was decided at, so one that finds its row moved on writes nothing and is answered `None`
//! while the others are written. A statement that fails (a lost connection, a deadlock with
//! another server's statement) is sent again one append at a time, so each append gets its own
//! answer or its own error; one whose first statement did commit finds its row moved on and
//! goes the locked way, where its events are recognised as a retry.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures_util::future::join_all;
use sqlx::postgres::PgRow;
use sqlx::{PgPool, Row};
use tokio::sync::oneshot;

use super::commit::Shared;
use super::error::StoreError;
use super::gather::{Gather, Gathered, answered};
use super::lanes::Lanes;
use super::types::SCHEMA_VERSION;
use super::writes::translate;
use crate::records::NewEvent;

/// One plain append in one statement: what [`PLAIN_APPENDS`] writes, for a lone append, in a
/// shape PostgreSQL runs faster (one game, nothing to join).
/// `$1`–`$5` the game's new version, the time, the game, its club and the decided version;
/// `$7`–`$11` the events' seq, id, type, data and author; `$12` as `$6` there. The club is
/// compared as `club_id || ''`, so that only the primary key can find the game's row: given
/// `club_id = $4`, a generic plan made while the table was empty or not yet analysed would walk
/// an index by club on every append.
pub const PLAIN_APPEND: &str = "WITH moved AS ( \
         UPDATE games SET version = $1, updated_at = $2 \
         WHERE id = $3 AND club_id || '' = $4 AND version = $5 RETURNING club_id \
     ), in_flight AS MATERIALIZED ( \
         SELECT pg_advisory_xact_lock_shared(7461626, hashtext(club_id)), \
                CASE WHEN NOT $12::boolean THEN pg_advisory_xact_lock_shared(7461627, 2) END \
         FROM moved \
     ) \
     INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
     SELECT $3, e.seq, e.event_id, e.type, $6, e.data, $2, e.recorded_by \
     FROM in_flight CROSS JOIN \
          unnest($7::bigint[], $8::text[], $9::text[], $10::text[], $11::text[]) \
          WITH ORDINALITY AS e (seq, event_id, type, data, recorded_by, n) \
     ORDER BY e.n \
     RETURNING $3 AS game_id, seq, position";

/// Plain appends in one statement (`PostgresStore::write_at_version`, [`PlainAppends`]), one
/// transaction: `$1`–`$5` each append's game, club, decided version, new version and time;
/// `$8`–`$14` each event's game, seq, id, type, data, author and time. A game's row moves on only
/// if it is still at its decided version and in the club, and only such a game's events are
/// inserted, after the club's positions lock (shared). Each game's row is found by its primary
/// key alone, one lookup a game (the club compared as in [`PLAIN_APPEND`]), and updated where
/// that lookup found it (`ctid`): joined to the games by any column, a generic plan made while
/// the table was empty or not yet analysed read the whole table into a hash. A row another
/// transaction moved on meanwhile is a new row version, and is not updated (nor its version
/// compared equal, for certain). The arrays are read by subscript, not `unnest`: the planner
/// counts the elements of an array it is given, so each execution's own plan looked cheaper
/// than one plan for any arrays, and PostgreSQL planned the statement afresh every time (a
/// fifth of its CPU for an append). `$6`: this server is the database's only writer (its term
/// began before each append); when not, the statement takes the servers' writes lock, shared,
/// until its commit ([`super::sole`]).
pub const PLAIN_APPENDS: &str = "WITH asked AS MATERIALIZED ( \
         SELECT ($1::text[])[i] AS id, ($2::text[])[i] AS club_id, ($3::bigint[])[i] AS at, \
                ($4::bigint[])[i] AS version, ($5::timestamptz[])[i] AS now \
         FROM generate_subscripts($1::text[], 1) AS i \
     ), moved AS ( \
         UPDATE games AS g SET version = a.version, updated_at = a.now \
         FROM asked AS a CROSS JOIN LATERAL ( \
             SELECT ctid FROM games \
             WHERE id = a.id AND club_id || '' = a.club_id AND version = a.at LIMIT 1 \
         ) AS found \
         WHERE g.ctid = found.ctid AND g.version IS NOT DISTINCT FROM a.at \
         RETURNING g.id, g.club_id \
     ), in_flight AS MATERIALIZED ( \
         SELECT id, pg_advisory_xact_lock_shared(7461626, hashtext(club_id)), \
                CASE WHEN NOT $6::boolean THEN pg_advisory_xact_lock_shared(7461627, 2) END \
         FROM moved \
     ) \
     INSERT INTO events (game_id, seq, event_id, type, schema_version, data, recorded_at, recorded_by) \
     SELECT e.game_id, e.seq, e.event_id, e.type, $7, e.data, e.recorded_at, e.recorded_by \
     FROM ( \
         SELECT n, ($8::text[])[n] AS game_id, ($9::bigint[])[n] AS seq, \
                ($10::text[])[n] AS event_id, ($11::text[])[n] AS type, ($12::text[])[n] AS data, \
                ($13::text[])[n] AS recorded_by, ($14::timestamptz[])[n] AS recorded_at \
         FROM generate_subscripts($8::text[], 1) AS n \
     ) AS e \
     JOIN in_flight AS f ON f.id = e.game_id \
     ORDER BY e.n \
     RETURNING game_id, seq, position";

/// Each event's `(seq, position)` in order, or `None`: the game's row was not at the decided
/// version in the club, and nothing was written.
pub(super) type Positions = Option<Vec<(i64, i64)>>;

/// One plain append, as decided.
pub(super) struct PlainAppend<'a> {
    pub club: &'a str,
    pub id: &'a str,
    /// The game's version it was decided at; its events take the numbers after it.
    pub at: i64,
    pub now: DateTime<Utc>,
    pub events: &'a [NewEvent],
    /// This server's term began before the append: no writes lock to take ([`super::sole`]).
    pub alone: bool,
}

pub(super) struct Ask {
    club: String,
    id: String,
    at: i64,
    now: DateTime<Utc>,
    event_ids: Vec<String>,
    types: Vec<String>,
    data: Vec<String>,
    recorded_by: Vec<Option<String>>,
    alone: bool,
    reply: oneshot::Sender<Result<Positions, StoreError>>,
}

/// The handle plain appends are written through.
pub(super) struct PlainAppends {
    appends: Gathered<Statements>,
}

struct Statements {
    pool: PgPool,
    /// A statement runs on a kept connection (no ping, [`super::lanes`]).
    lanes: Arc<Lanes>,
    /// Counts each statement's appends as one commit's.
    shared: Arc<Shared>,
}

impl PlainAppends {
    /// Called inside the runtime the statements for waiting appends are to run on.
    pub(super) fn start(pool: PgPool, lanes: Arc<Lanes>, shared: Arc<Shared>) -> Self {
        Self {
            appends: Gathered::start(Statements {
                pool,
                lanes,
                shared,
            }),
        }
    }

    pub(super) async fn write(&self, append: PlainAppend<'_>) -> Result<Positions, StoreError> {
        let (reply, answer) = oneshot::channel();
        let events = append.events;
        self.appends
            .ask(Ask {
                club: append.club.to_owned(),
                id: append.id.to_owned(),
                at: append.at,
                now: append.now,
                event_ids: events.iter().map(|e| e.id.clone()).collect(),
                types: events.iter().map(|e| e.event_type.clone()).collect(),
                data: events.iter().map(|e| e.data.to_string()).collect(),
                recorded_by: events.iter().map(|e| e.recorded_by.clone()).collect(),
                alone: append.alone,
                reply,
            })
            .await;
        answered(answer).await
    }
}

impl Gather for Statements {
    type Ask = Ask;
    const MOST: usize = 64;

    async fn answer(&self, mut asks: Vec<Ask>) {
        // In the games' order, so that two servers' statements lock their rows in one order.
        asks.sort_by(|a, b| a.id.cmp(&b.id));
        // One append a game a statement: a second one waiting for the same game (another way
        // in than the held state, kept safe all the same) goes the locked way.
        let mut once: Vec<Ask> = Vec::with_capacity(asks.len());
        for ask in asks {
            if once.last().is_some_and(|last| last.id == ask.id) {
                let _ = ask.reply.send(Ok(None));
            } else {
                once.push(ask);
            }
        }
        match self.statement(&once).await {
            Ok(rows) => answer_each(once, rows),
            Err(e) if once.len() == 1 => {
                if let Some(ask) = once.into_iter().next() {
                    let _ = ask.reply.send(Err(translate(e)));
                }
            }
            Err(_) => {
                join_all(once.into_iter().map(|ask| async move {
                    match self.statement(std::slice::from_ref(&ask)).await {
                        Ok(rows) => answer_each(vec![ask], rows),
                        Err(e) => {
                            let _ = ask.reply.send(Err(translate(e)));
                        }
                    }
                }))
                .await;
            }
        }
    }
}

impl Statements {
    /// Writes `asks` in one statement: `(game, seq, position)` of each event written.
    async fn statement(&self, asks: &[Ask]) -> Result<Vec<(String, i64, i64)>, sqlx::Error> {
        if let [ask] = asks {
            return self.one(ask).await;
        }
        let count = asks.iter().map(|a| a.event_ids.len()).sum();
        let mut games = Vec::with_capacity(count);
        let mut seqs = Vec::with_capacity(count);
        let mut times = Vec::with_capacity(count);
        for ask in asks {
            for n in 1..=ask.event_ids.len() as i64 {
                games.push(ask.id.as_str());
                seqs.push(ask.at + n);
                times.push(ask.now);
            }
        }
        let flat = |f: fn(&Ask) -> &[String]| -> Vec<&str> {
            asks.iter()
                .flat_map(|a| f(a).iter().map(String::as_str))
                .collect()
        };
        let mut lane = self.lanes.take(&self.pool, Lanes::SHARED).await?;
        let rows = sqlx::query(PLAIN_APPENDS)
            .bind(asks.iter().map(|a| a.id.as_str()).collect::<Vec<_>>())
            .bind(asks.iter().map(|a| a.club.as_str()).collect::<Vec<_>>())
            .bind(asks.iter().map(|a| a.at).collect::<Vec<_>>())
            .bind(
                asks.iter()
                    .map(|a| a.at + a.event_ids.len() as i64)
                    .collect::<Vec<_>>(),
            )
            .bind(asks.iter().map(|a| a.now).collect::<Vec<_>>())
            .bind(asks.iter().all(|a| a.alone))
            .bind(SCHEMA_VERSION)
            .bind(games)
            .bind(seqs)
            .bind(flat(|a| &a.event_ids))
            .bind(flat(|a| &a.types))
            .bind(flat(|a| &a.data))
            .bind(
                asks.iter()
                    .flat_map(|a| a.recorded_by.iter().map(Option::as_deref))
                    .collect::<Vec<_>>(),
            )
            .bind(times)
            .fetch_all(&mut **lane)
            .await?;
        self.lanes.give_back(lane);
        self.shared.count_batch(asks.len());
        written(rows)
    }

    /// Writes a lone append by the statement made for one ([`PLAIN_APPEND`]).
    async fn one(&self, ask: &Ask) -> Result<Vec<(String, i64, i64)>, sqlx::Error> {
        let count = ask.event_ids.len() as i64;
        let mut lane = self.lanes.take(&self.pool, Lanes::SHARED).await?;
        let rows = sqlx::query(PLAIN_APPEND)
            .bind(ask.at + count)
            .bind(ask.now)
            .bind(&ask.id)
            .bind(&ask.club)
            .bind(ask.at)
            .bind(SCHEMA_VERSION)
            .bind((ask.at + 1..=ask.at + count).collect::<Vec<_>>())
            .bind(&ask.event_ids)
            .bind(&ask.types)
            .bind(&ask.data)
            .bind(&ask.recorded_by)
            .bind(ask.alone)
            .fetch_all(&mut **lane)
            .await?;
        self.lanes.give_back(lane);
        self.shared.count_batch(1);
        written(rows)
    }
}

/// `(game, seq, position)` of each event a statement wrote.
fn written(rows: Vec<PgRow>) -> Result<Vec<(String, i64, i64)>, sqlx::Error> {
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("game_id")?,
                row.try_get("seq")?,
                row.try_get("position")?,
            ))
        })
        .collect()
}

/// Each ask's events as written, or `None` when its game's row had moved on.
fn answer_each(asks: Vec<Ask>, rows: Vec<(String, i64, i64)>) {
    let mut written: HashMap<String, Vec<(i64, i64)>> = HashMap::new();
    for (game, seq, position) in rows {
        written.entry(game).or_default().push((seq, position));
    }
    for ask in asks {
        let positions = written
            .remove(&ask.id)
            .filter(|events| events.len() == ask.event_ids.len())
            .map(|mut events| {
                events.sort_unstable();
                events
            });
        // A caller that gave up (its request was dropped) needs no answer.
        let _ = ask.reply.send(Ok(positions));
    }
}
