//! A club's history in and out, as `tabletally.game/1` NDJSON: one game a line, its summary and
//! every stored event (retracted and corrected ones included) with its seq, id, type, data,
//! schema version and time. The event log is the source of truth, so a game moves whole: an
//! imported game is checked by the rules as if its events were appended, and stored with its
//! ids, so a second import of the same file changes nothing.
//!
//! Used by `GET /v1/export`, `POST /v1/import` and the `tabletally export|import` commands;
//! `migrate` copies a whole database this way, and `other_apps` brings history from BG Stats
//! and BoardGameGeek in (and takes it out) as typed-in results.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures_util::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tabletally_domain::log::{GAME_STARTED, LogEvent, NewEvent, SCHEMA_VERSION};
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Evaluation, Game};
use utoipa::ToSchema;

use crate::append::game_result;
use crate::config::MAX_EVENTS_PER_GAME;
use crate::extract::json_with_unique_keys;
use crate::records::to_log_event;
use crate::store::{ImportOutcome, ImportedGame, NewGame, NewSeat, Store, StoreError, StoredEvent};
use crate::views::{GameSummary, event_views};

mod migrate;
pub mod other_apps;

pub use migrate::{MigrateError, Migrated, Progress, migrate};

/// The format of one exported game (one NDJSON line).
pub const FORMAT: &str = "tabletally.game/1";

/// Games read per page while exporting: memory stays flat whatever the club's size.
pub(crate) const EXPORT_PAGE: i64 = 100;

/// One line of an export.
#[derive(Debug, Serialize)]
struct ExportLine {
    format: &'static str,
    game: GameSummary,
    events: Vec<crate::views::EventView>,
}

/// The club's games, one NDJSON line each (with its newline), in the order they were played, read a page
/// at a time.
pub fn export(
    store: Arc<dyn Store>,
    club: String,
) -> impl Stream<Item = Result<Vec<u8>, StoreError>> + 'static {
    struct Page {
        ids: std::vec::IntoIter<String>,
        after: Option<String>,
        done: bool,
    }
    let start = Page {
        ids: Vec::new().into_iter(),
        after: None,
        done: false,
    };
    futures_util::stream::try_unfold(start, move |mut page| {
        let (store, club) = (store.clone(), club.clone());
        async move {
            loop {
                if let Some(id) = page.ids.next() {
                    let Some((game, log)) = store.events(&club, &id).await? else {
                        continue; // not possible: games are never deleted
                    };
                    let line = ExportLine {
                        format: FORMAT,
                        game: GameSummary::from(game),
                        events: event_views(log),
                    };
                    let mut bytes = serde_json::to_vec(&line)
                        .map_err(|e| StoreError::Corrupt(format!("game {id}: {e}")))?;
                    bytes.push(b'\n');
                    return Ok(Some((bytes, page)));
                }
                if page.done {
                    return Ok(None);
                }
                let ids = store
                    .club_game_ids(&club, page.after.as_deref(), EXPORT_PAGE)
                    .await?;
                page.done = (ids.len() as i64) < EXPORT_PAGE;
                page.after = ids.last().cloned().or(page.after);
                page.ids = ids.into_iter();
            }
        }
    })
}

/// What an import did, line by line.
#[derive(Debug, Default, Clone, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({
    "imported": 41, "already_present": 2,
    "failed": [{"line": 7, "game_id": "0b6c3f0e-5d7e-4f3b-9a51-3c2d1e0f9a8b", "status": 422,
                "detail": "event 3 (round_collected) breaks a rule: unknown card \"fine-whine\" (at /collections/Bo/2)"}],
    "skipped": [{"game": "Coloretto", "plays": 12}]
}))]
pub struct ImportReport {
    /// Games stored.
    pub imported: u64,
    /// Games whose id this club already has: nothing was changed.
    pub already_present: u64,
    /// Lines that were not imported, and why; the other lines still were.
    pub failed: Vec<ImportFailure>,
    /// From other apps: plays of games tabletally does not keep, counted by game.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<other_apps::Skipped>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ImportFailure {
    /// Counted from 1: the line of an NDJSON file; from BG Stats the play's place in `plays`
    /// (1 is `plays[0]`); from BoardGameGeek the `<play>` element's place in the file.
    pub line: u64,
    /// The game's id, when the line names one.
    pub game_id: Option<String>,
    /// The status the same request would get on its own: 400 unreadable, 409 conflict,
    /// 422 breaks a rule.
    pub status: u16,
    pub detail: String,
}

/// The summary of an imported game; status and version come from its events.
#[derive(Debug, Deserialize)]
struct ImportSummary {
    id: String,
    game: String,
    #[serde(default)]
    started_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize)]
struct ImportEvent {
    seq: i64,
    id: String,
    #[serde(rename = "type")]
    event_type: String,
    data: Value,
    recorded_at: DateTime<Utc>,
    /// Who recorded it; absent or null in files from before it was kept.
    #[serde(default)]
    recorded_by: Option<String>,
    /// Absent: written by today's schema.
    #[serde(default)]
    schema_version: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct ImportLine {
    format: String,
    game: ImportSummary,
    events: Vec<ImportEvent>,
}

#[derive(Debug, Deserialize)]
struct StartedSeat {
    name: String,
    #[serde(default)]
    seat: Option<i64>,
    #[serde(default)]
    color: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Started {
    players: Vec<StartedSeat>,
    #[serde(default)]
    options: Value,
    #[serde(default)]
    started_at: Option<DateTime<Utc>>,
}

/// Imports one NDJSON line into the club, counting it in `report` (or why it failed).
pub async fn import_line(
    store: &dyn Store,
    club: &str,
    line_number: u64,
    line: &str,
    report: &mut ImportReport,
) {
    import_line_as(store, club, line_number, line, report, GameIds::Kept).await;
}

/// How an import names its games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GameIds {
    /// The file's own ids: a game is the same game wherever it goes.
    #[default]
    Kept,
    /// New ids, each made from the club and the file's id: a copy of another club's games on
    /// the same database (importing the copy twice still changes nothing).
    New,
}

/// A game id made from another id (another app's play, or a game of another club): the same
/// source imported into the same club always gets the same id (and into another club another).
pub(super) fn derived_id(club: &str, source_id: &str) -> String {
    let digest = Sha256::digest(format!("tabletally import {club} {source_id}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    // A version 8 (custom) UUID of the RFC 9562 variant.
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    uuid::Uuid::from_bytes(bytes).to_string()
}

/// [`import_line`], the game named as `ids` says.
pub async fn import_line_as(
    store: &dyn Store,
    club: &str,
    line_number: u64,
    line: &str,
    report: &mut ImportReport,
    ids: GameIds,
) {
    let mut fail = |game_id: Option<String>, status: u16, detail: String| {
        report.failed.push(ImportFailure {
            line: line_number,
            game_id,
            status,
            detail,
        });
    };
    let (mut game, evaluation) = match check_line(line) {
        Ok(checked) => checked,
        Err((game_id, status, detail)) => return fail(game_id, status, detail),
    };
    if ids == GameIds::New {
        game.game.id = derived_id(club, &format!("tabletally:{}", game.game.id));
    }
    let id = game.game.id.clone();
    let result = |record: &_| game_result(record, &evaluation);
    match store.import_game(club, &game, &result).await {
        Ok(ImportOutcome::Imported) => {
            report.imported += 1;
            if report.imported == 1_000 || report.imported.is_multiple_of(10_000) {
                // A long import: the planner's statistics still describe the small tables it
                // started with (measured: 500 games/s with fresh statistics, 180 and falling
                // without, at 20,000 games). A failure only costs speed.
                if let Err(e) = store.refresh_planner_statistics().await {
                    tracing::warn!(error = %e, "the planner's statistics could not be refreshed");
                }
            }
        }
        Ok(ImportOutcome::AlreadyPresent) => report.already_present += 1,
        Err(StoreError::Conflict(detail)) => fail(Some(id), 409, detail),
        Err(e) => {
            tracing::error!(error = %e, game = %id, "import failed");
            fail(
                Some(id),
                500,
                "the game could not be stored; see the server log".into(),
            );
        }
    }
}

type LineError = (Option<String>, u16, String);

/// Reads and checks one exported game: the format, its numbering, and every event by the
/// rules as if appended in order.
fn check_line(line: &str) -> Result<(ImportedGame, Evaluation), LineError> {
    // As a request body is read: a key named twice in one object is refused, not half-read.
    let parsed: ImportLine = json_with_unique_keys(line)
        .and_then(|value| {
            // serde would name its own struct; say what a line is instead.
            if value.is_object() {
                serde_json::from_value(value)
            } else {
                Err(serde::de::Error::custom(
                    "a line must be one JSON object {\"format\", \"game\", \"events\"}",
                ))
            }
        })
        .map_err(|e| {
            (
                serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|v| v["game"]["id"].as_str().map(str::to_owned)),
                400,
                format!("not a {FORMAT} game: {e}"),
            )
        })?;
    let id = parsed.game.id.clone();
    let unprocessable = |detail: String| (Some(id.clone()), 422, detail);
    if parsed.format != FORMAT {
        return Err((
            Some(id.clone()),
            400,
            format!("format must be {FORMAT:?}, not {:?}", parsed.format),
        ));
    }
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(unprocessable(format!("game id {id:?} is not a UUID")));
    }
    let kind = Game::from_id(&parsed.game.game).ok_or_else(|| {
        unprocessable(format!(
            "unknown game {:?}; games are {}",
            parsed.game.game,
            tabletally_domain::games::known_ids()
        ))
    })?;
    if parsed.events.len() > MAX_EVENTS_PER_GAME {
        return Err(unprocessable(format!(
            "a game's log holds at most {MAX_EVENTS_PER_GAME} events; this one has {}",
            parsed.events.len()
        )));
    }
    for (i, event) in parsed.events.iter().enumerate() {
        if event.seq != i as i64 + 1 {
            return Err(unprocessable(format!(
                "events are numbered 1, 2, 3 … without gaps; the event at position {} has seq {}",
                i + 1,
                event.seq
            )));
        }
        if parsed.events[..i].iter().any(|e| e.id == event.id) {
            return Err(unprocessable(format!(
                "event id {} appears twice (events {} and {})",
                event.id,
                parsed.events[..i]
                    .iter()
                    .position(|e| e.id == event.id)
                    .map_or(0, |p| p + 1),
                i + 1
            )));
        }
    }
    let Some(first) = parsed
        .events
        .first()
        .filter(|e| e.event_type == GAME_STARTED)
    else {
        return Err(unprocessable("event 1 must be game_started".into()));
    };
    let started: Started = serde_json::from_value(first.data.clone())
        .map_err(|e| unprocessable(format!("event 1 (game_started): {e}")))?;
    // Its players as a new game seats them (count, names, colours), each at its own seat.
    let entries: Vec<PlayerEntry> = started
        .players
        .iter()
        .map(|p| PlayerEntry {
            name: p.name.clone(),
            color: p.color.clone(),
        })
        .collect();
    let seated = kind.seat(&entries).map_err(|e| {
        unprocessable(format!(
            "event 1 (game_started): {} (at /data{})",
            e.rule, e.pointer
        ))
    })?;
    for (i, (given, seat)) in started.players.iter().zip(&seated).enumerate() {
        if given.name != seat.name || given.seat.is_some_and(|s| s != i64::from(seat.seat)) {
            return Err(unprocessable(format!(
                "event 1 (game_started): player {} must be {:?} at seat {} (seats are 1, 2, 3 … \
                 in order, names without spaces around them)",
                i + 1,
                seat.name,
                seat.seat
            )));
        }
    }
    let stored: Vec<StoredEvent> = parsed
        .events
        .into_iter()
        .map(|e| StoredEvent {
            position: 0,
            seq: e.seq,
            id: e.id,
            event_type: e.event_type,
            schema_version: e.schema_version.unwrap_or(i64::from(SCHEMA_VERSION)),
            data: e.data,
            recorded_at: e.recorded_at,
            recorded_by: e.recorded_by,
        })
        .collect();
    let start: Vec<LogEvent> = stored[..1].iter().map(to_log_event).collect();
    let rest: Vec<NewEvent> = stored[1..]
        .iter()
        .map(|e| NewEvent {
            event_type: e.event_type.clone(),
            data: e.data.clone(),
        })
        .collect();
    let evaluation = if rest.is_empty() {
        kind.evaluate_with_facts(&start)
            .map_err(|e| unprocessable(e.to_string()))?
    } else {
        kind.check_append(&start, &rest).map_err(|r| {
            let event = &stored[r.event_index + 1];
            let at = if r.pointer.is_empty() {
                String::new()
            } else {
                format!(" (at {})", r.pointer)
            };
            unprocessable(format!(
                "event {} ({}) breaks a rule: {}{at}",
                event.seq, event.event_type, r.rule
            ))
        })?
    };
    let game = NewGame {
        id: id.clone(),
        game: kind.id().to_owned(),
        players: started
            .players
            .into_iter()
            .map(|p| NewSeat {
                name: p.name,
                player_id: None,
                color: p.color,
            })
            .collect(),
        options: match started.options {
            Value::Null => Value::Object(Default::default()),
            options => options,
        },
        started_at: started
            .started_at
            .or(parsed.game.started_at)
            .unwrap_or(stored[0].recorded_at),
        // Each imported event keeps its own.
        recorded_by: None,
    };
    Ok((
        ImportedGame {
            game,
            status: evaluation.status,
            events: stored,
        },
        evaluation,
    ))
}
