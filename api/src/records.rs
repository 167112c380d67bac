//! The records the write path's decision reads and the store writes: a game's row, its events,
//! what a finished game adds to the statistics, and a game held replayed in memory.

use std::sync::Mutex;

use actix_web::web::Bytes;
use chrono::{DateTime, Utc};
use serde_json::Value;
use tabletally_domain::GameState;
use tabletally_domain::log::LogEvent;

#[derive(Debug, Clone, PartialEq)]
pub struct SeatRecord {
    pub seat: i64,
    pub name: String,
    pub player_id: String,
    pub color: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GameRecord {
    pub id: String,
    pub game: String,
    pub status: String,
    pub version: i64,
    pub options: Value,
    pub players: Vec<SeatRecord>,
    pub started_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Global order of appends across all games.
    pub position: i64,
    pub seq: i64,
    pub id: String,
    pub event_type: String,
    pub schema_version: i64,
    pub data: Value,
    pub recorded_at: DateTime<Utc>,
    /// The name of the token that appended it (`None` for events stored before it was kept).
    pub recorded_by: Option<String>,
}

/// An event to append, as checked by the decision.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub id: String,
    pub event_type: String,
    pub data: Value,
    /// The name of the token that appends it.
    pub recorded_by: Option<String>,
}

/// What a finished game contributes to the statistics read models.
#[derive(Debug, Clone, PartialEq)]
pub struct GameResult {
    pub players: Vec<PlayerResult>,
    /// `(player_id or None for the whole game, key, value)`.
    pub facts: Vec<(Option<String>, String, i64)>,
    /// The variant whose figures this game counts in (`None`: the published rules).
    pub variant: Option<String>,
    /// The scoreboard's direction: true when the lowest total won.
    pub lower_wins: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlayerResult {
    pub player_id: String,
    pub seat: i64,
    pub total: i64,
    pub rank: i64,
    pub won: bool,
}

/// A stored event as the domain replays it, with the schema version it was written with (the
/// replay upcasts older data; the row is never rewritten).
pub fn to_log_event(e: &StoredEvent) -> LogEvent {
    LogEvent {
        seq: e.seq as u64,
        event_type: e.event_type.clone(),
        data: e.data.clone(),
        // Only this server writes the column (1, 2, …); anything else reads as the oldest
        // schema, which upcasts the most.
        schema_version: u32::try_from(e.schema_version).unwrap_or(0),
    }
}

/// [`to_log_event`], without copying the data.
fn into_log_event(e: StoredEvent) -> LogEvent {
    LogEvent {
        seq: e.seq as u64,
        event_type: e.event_type,
        data: e.data,
        schema_version: u32::try_from(e.schema_version).unwrap_or(0),
    }
}

/// What the store knows of an event besides what the domain holds (type, data, schema).
#[derive(Debug, Clone)]
pub struct EventMeta {
    pub position: i64,
    pub id: String,
    pub recorded_at: DateTime<Utc>,
    pub recorded_by: Option<String>,
    /// The event's rough size in memory, counted once (see [`HeldGame::bytes`]).
    bytes: usize,
}

impl EventMeta {
    pub fn of(event: &StoredEvent) -> Self {
        Self {
            position: event.position,
            id: event.id.clone(),
            recorded_at: event.recorded_at,
            recorded_by: event.recorded_by.clone(),
            bytes: 96 + event.event_type.len() + value_bytes(&event.data),
        }
    }
}

/// A game's row and its log, replayed: what an append decides from and a score read answers with.
pub struct HeldGame {
    pub game: GameRecord,
    /// One per event of `state.log()`, in the same order.
    pub meta: Vec<EventMeta>,
    pub state: GameState,
    /// The current score's answer body with the log length it was made at: made by the first
    /// score read, so the next ones at the same version answer without evaluating anything.
    score_body: Mutex<Option<(usize, Bytes)>>,
}

impl Clone for HeldGame {
    fn clone(&self) -> Self {
        Self {
            game: self.game.clone(),
            meta: self.meta.clone(),
            state: self.state.clone(),
            score_body: Mutex::new(self.lock_score_body().clone()),
        }
    }
}

impl HeldGame {
    /// Replays a stored log (the cache missed).
    pub fn replay(game: GameRecord, log: Vec<StoredEvent>) -> Result<Self, String> {
        let kind = tabletally_domain::Game::from_id(&game.game)
            .ok_or_else(|| format!("unknown game {}", game.game))?;
        let mut meta = Vec::with_capacity(log.len());
        let mut events = Vec::with_capacity(log.len());
        for e in log {
            meta.push(EventMeta::of(&e));
            events.push(into_log_event(e));
        }
        let state = kind.replay(events).map_err(|e| e.to_string())?;
        Ok(Self::new(game, meta, state))
    }

    pub fn new(game: GameRecord, meta: Vec<EventMeta>, state: GameState) -> Self {
        Self {
            game,
            meta,
            state,
            score_body: Mutex::new(None),
        }
    }

    /// The current score's answer body: the one kept for this log, or `make`'s (then kept).
    pub fn score_body<E>(&self, make: impl FnOnce(&Self) -> Result<Bytes, E>) -> Result<Bytes, E> {
        let events = self.state.log().len();
        if let Some((at, body)) = self.lock_score_body().as_ref()
            && *at == events
        {
            return Ok(body.clone());
        }
        let body = make(self)?;
        *self.lock_score_body() = Some((events, body.clone()));
        Ok(body)
    }

    fn lock_score_body(&self) -> std::sync::MutexGuard<'_, Option<(usize, Bytes)>> {
        // A panic while holding it leaves nothing half-written: the value is replaced whole.
        self.score_body.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The stored event at `seq` (1-based), as the store would read it.
    pub fn stored(&self, seq: i64) -> Option<StoredEvent> {
        let i = usize::try_from(seq - 1).ok()?;
        let (meta, event) = (self.meta.get(i)?, self.state.log().get(i)?);
        Some(StoredEvent {
            position: meta.position,
            seq,
            id: meta.id.clone(),
            event_type: event.event_type.clone(),
            schema_version: i64::from(event.schema_version),
            data: event.data.clone(),
            recorded_at: meta.recorded_at,
            recorded_by: meta.recorded_by.clone(),
        })
    }

    /// A rough size in memory, for the cache's byte bound: the log, and as much again each for
    /// the replayed state, the state before the last event (kept for an undo) and the score's
    /// answer body. Each event's size is counted once, when it joins the log (a game is put back
    /// in the cache after every append).
    pub fn bytes(&self) -> usize {
        4 * self.meta.iter().map(|m| m.bytes).sum::<usize>() + self.meta.len() * 80 + 1024
    }
}

fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 16,
        Value::String(s) => 24 + s.len(),
        Value::Array(items) => 24 + items.iter().map(value_bytes).sum::<usize>(),
        Value::Object(map) => {
            48 + map
                .iter()
                .map(|(k, v)| 32 + k.len() + value_bytes(v))
                .sum::<usize>()
        }
    }
}

/// The variant a game with these effective options counts in, as its ruleset says (`None`: the
/// published rules, or a game this server does not know).
pub fn variant_of(game: &str, options: &Value) -> Option<String> {
    tabletally_domain::Game::from_id(game)
        .and_then(|kind| kind.variant(options))
        .map(|v| v.id.to_owned())
}
