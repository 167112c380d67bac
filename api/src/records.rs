//! The records the write path's decision reads and the store writes: a game's row, its events,
//! what a finished game adds to the statistics, and a game held replayed in memory.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};

use chrono::{DateTime, Utc};
use serde_json::Value;
use tabletally_domain::GameState;
use tabletally_domain::log::{COMMON_EVENT_TYPES, LogEvent};

use crate::append::AppendRequest;

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
    /// The effective options, shared by the games that play the same ones ([`shared_options`]).
    pub options: Arc<Value>,
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
}

impl EventMeta {
    pub fn of(event: &StoredEvent) -> Self {
        Self {
            position: event.position,
            id: event.id.clone(),
            recorded_at: event.recorded_at,
            recorded_by: event.recorded_by.clone(),
        }
    }
}

/// A game's row and its state, replayed: what an append decides from and a score read answers
/// with.
///
/// Held between appends, a game keeps what its next plain append and its score need: the row,
/// the replayed state and its events' ids (hashed). Its log is held only while an append that
/// needs it is decided ([`HeldGame::needs_log`]: a retract, a correction, an abandon, or an
/// event id already stored), read again from the database for it; a past score reads it too.
#[derive(Clone)]
pub struct HeldGame {
    pub game: GameRecord,
    /// Each event's id, hashed, seq 1 first: an append naming one of them (a retry, or an id
    /// used again) is decided with the log, which tells the two apart.
    ids: Vec<u32>,
    /// One per event of `state.log()`, in the same order, while the log is held.
    meta: Option<Vec<EventMeta>>,
    pub state: GameState,
}

impl HeldGame {
    /// Replays a stored log (the cache missed, or an append needs the log), holding it.
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
            ids: meta.iter().map(|m| id_hash(&m.id)).collect(),
            meta: Some(meta),
            state,
        }
    }

    /// Lets the log go (see the type's docs): what a game held between appends keeps.
    pub fn let_go_of_log(&mut self) {
        self.meta = None;
        self.state.let_go_of_log();
        self.ids.shrink_to_fit();
        self.game.players.shrink_to_fit();
    }

    /// Lets the replay from before the last event go: an undo then needs the log.
    pub fn let_go_of_undo(&mut self) {
        self.state.let_go_of_undo();
    }

    /// Whether the replay from before the last event is kept, for an undo.
    pub fn keeps_undo(&self) -> bool {
        self.state.keeps_undo()
    }

    /// Whether deciding `request` needs the log, and it was let go: an event id it may hold,
    /// or a retract, correction or abandon (but the undo of the last event while its replay
    /// from before is kept; the domain says which).
    pub fn needs_log(&self, request: &AppendRequest) -> bool {
        if self.meta.is_some() {
            return false;
        }
        if request
            .events
            .iter()
            .any(|e| self.ids.contains(&id_hash(&e.id)))
        {
            return true;
        }
        request
            .events
            .iter()
            .any(|e| COMMON_EVENT_TYPES.contains(&e.event_type.as_str()))
            && self.state.needs_log(&crate::append::domain_events(request))
    }

    /// The seq of the event with this id, when the log is held and has it.
    pub fn seq_of(&self, id: &str) -> Option<i64> {
        let at = self.meta.as_ref()?.iter().position(|m| m.id == id)?;
        Some(at as i64 + 1)
    }

    /// New events joined the log (their ids, and their columns while the log is held).
    pub fn stored_events(&mut self, stored: &[StoredEvent]) {
        self.ids.extend(stored.iter().map(|e| id_hash(&e.id)));
        if let Some(meta) = self.meta.as_mut() {
            meta.extend(stored.iter().map(EventMeta::of));
        }
    }

    /// Each held event's columns, while the log is held.
    pub fn meta_mut(&mut self) -> impl Iterator<Item = &mut EventMeta> {
        self.meta.iter_mut().flatten()
    }

    /// The stored event at `seq` (1-based), as the store would read it, while the log is held.
    pub fn stored(&self, seq: i64) -> Option<StoredEvent> {
        let i = usize::try_from(seq - 1).ok()?;
        let (meta, event) = (self.meta.as_ref()?.get(i)?, self.state.log()?.get(i)?);
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

    /// A rough size in memory, for the cache's byte bound, of a game whose log was let go: the
    /// row (its options counted as their JSON tree), the ids, and the replayed state as its
    /// game keeps it (see [`state_bytes`]).
    pub fn bytes(&self) -> usize {
        let game = &self.game;
        let row = game.id.len()
            + game.game.len()
            + game.status.len()
            + 3 * ALLOCATION
            // Shared options are counted in shares.
            + value_bytes(&game.options) / Arc::strong_count(&game.options)
            + game
                .players
                .iter()
                .map(|p| {
                    std::mem::size_of::<SeatRecord>()
                        + p.name.len()
                        + p.player_id.len()
                        + p.color.as_ref().map_or(0, String::len)
                        + 3 * ALLOCATION
                })
                .sum::<usize>();
        let state = state_bytes(&game.game, game.players.len(), self.state.game_events());
        // The replay from before the last event, while kept, is about as big again.
        let undo = if self.keeps_undo() { state } else { 0 };
        ENTRY_BYTES
            + std::mem::size_of::<Self>()
            + self.state.replay_size()
            + row
            + self.ids.capacity() * 4
            + state
            + undo
    }
}

/// What the cache's entry costs besides the game: its id in two maps, the entry, the `Arc`.
const ENTRY_BYTES: usize = 272;
/// An allocation's share of the allocator's rounding.
const ALLOCATION: usize = 16;

/// A game's replayed state as its game keeps it, by players and game events in force (a
/// retracted event and its retract add nothing): measured with the allocator's count on each
/// game's benchmark fixture (`api/tests/held_bytes.rs`).
fn state_bytes(game: &str, players: usize, game_events: usize) -> usize {
    match game {
        // Each round collected keeps every player's cards, three bytes a card.
        "mint-condition" => 380 + 56 * players * game_events,
        // Each turn keeps what every player played and took; the rows grow with them.
        "mind-up" => 300 + 40 * players + 13 * players * game_events,
        // The race and the bets: the same size all game.
        "mint-julep" => 120 * players,
        // The options' prizes and the table, and every card an event described (two a turn),
        // each its texts' numbers.
        "vintage" => 1000 + 45 * game_events,
        _ => 1024 + 256 * game_events,
    }
}

/// An event id's hash, for telling an id never stored from one that may be (a hash that
/// matches reads the log; ids are compared there). Four bytes: a game of a few hundred events
/// matches a new id by chance about once in ten million appends.
fn id_hash(id: &str) -> u32 {
    // FNV-1a: no key is needed, a false match only costs a log read.
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (hash ^ (hash >> 32)) as u32
}

/// Distinct options kept for sharing at most: past it, those no game holds go, and if half are
/// still held the map starts again (games keep the options they have; a scan a miss is avoided).
const SHARED_OPTIONS: usize = 4096;

/// Options by their stored text, while a game holds them.
static OPTIONS: LazyLock<Mutex<HashMap<Box<str>, Weak<Value>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// A game's effective options from their stored text, shared with every other game that plays
/// the same (the same text): most tables play the defaults or their club's preset, so ten
/// thousand held games keep a handful of option trees, not ten thousand.
pub fn shared_options(text: &str) -> Result<Arc<Value>, serde_json::Error> {
    let held = || {
        OPTIONS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    if let Some(options) = held().get(text).and_then(Weak::upgrade) {
        return Ok(options);
    }
    // Parsed outside the lock: another game's options are not kept waiting on a long deck.
    let options = Arc::new(serde_json::from_str(text)?);
    let mut shared = held();
    if let Some(earlier) = shared.get(text).and_then(Weak::upgrade) {
        return Ok(earlier);
    }
    if shared.len() >= SHARED_OPTIONS {
        shared.retain(|_, options| options.strong_count() > 0);
        // Still half full of options games hold: start again, rather than scan on every miss.
        if shared.len() >= SHARED_OPTIONS / 2 {
            shared.clear();
        }
    }
    shared.insert(text.into(), Arc::downgrade(&options));
    Ok(options)
}

fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(s) => s.len() + ALLOCATION,
        Value::Array(items) => {
            items.len() * std::mem::size_of::<Value>()
                + ALLOCATION
                + items.iter().map(value_bytes).sum::<usize>()
        }
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| 48 + k.len() + ALLOCATION + value_bytes(v))
            .sum::<usize>(),
    }
}

/// The variant a game with these effective options counts in, as its ruleset says (`None`: the
/// published rules, or a game this server does not know).
pub fn variant_of(game: &str, options: &Value) -> Option<String> {
    tabletally_domain::Game::from_id(game)
        .and_then(|kind| kind.variant(options))
        .map(|v| v.id.to_owned())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::shared_options;

    #[test]
    fn games_with_the_same_options_text_share_one_tree_while_any_holds_it() {
        let text = r#"{"lucky":true,"sleeve_protects":2,"shared_options_test":1}"#;
        let first = shared_options(text).expect("JSON");
        let second = shared_options(text).expect("JSON");
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(first["sleeve_protects"], 2);

        let other = shared_options(r#"{"lucky":false,"shared_options_test":1}"#).expect("JSON");
        assert!(!Arc::ptr_eq(&first, &other));

        // Let go by every game, the options are parsed again the next time.
        let weak = Arc::downgrade(&first);
        drop((first, second));
        assert_eq!(weak.strong_count(), 0);
        assert_eq!(shared_options(text).expect("JSON")["lucky"], true);
    }

    #[test]
    fn options_that_are_not_json_are_an_error_and_are_not_kept() {
        assert!(shared_options("{not json").is_err());
        assert!(shared_options("{not json").is_err());
    }
}
