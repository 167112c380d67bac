//! A club's history in and out, as NDJSON: first the club's players (`tabletally.player/1`:
//! id, current name, the other names their games seat them under) and table presets
//! (`tabletally.preset/1`), then one game a line (`tabletally.game/1`: its summary and every
//! stored event, retracted and corrected ones included, with its seq, id, type, data, schema
//! version and time). The event log is the source of truth, so a game moves whole: an
//! imported game is checked by the rules as if its events were appended, and stored with its
//! ids, so a second import of the same file changes nothing. Players and presets keep their ids
//! too, and a game's seats go back to the players its summary names, so a club comes back as
//! it was: merged players stay one, renamed ones keep their current name, and every
//! `game_started` reads as it did. A file of games alone (older exports) still imports, its
//! players matched by name.
//!
//! Used by `GET /v1/export`, `POST /v1/import` and the `tabletally export|import` commands;
//! `migrate` copies a whole database this way, and `other_apps` brings history from BG Stats
//! and BoardGameGeek in (and takes it out) as typed-in results.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures_util::Stream;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tabletally_domain::log::{GAME_STARTED, LogEvent, NewEvent, SCHEMA_VERSION};
use tabletally_domain::message::Catalogue;
use tabletally_domain::setup::PlayerEntry;
use tabletally_domain::{Evaluation, Game, Message, said};
use utoipa::ToSchema;

use crate::append::game_result;
use crate::config::MAX_EVENTS_PER_GAME;
use crate::records::to_log_event;
use crate::store::{ImportOutcome, ImportedGame, NewGame, NewSeat, Store, StoreError, StoredEvent};
use crate::views::{GameSummary, event_views};

mod club;
mod migrate;
pub mod other_apps;
mod shape;

pub use club::{PLAYER_FORMAT, PRESET_FORMAT};
use shape::Fields;

pub use migrate::{MigrateError, Migrated, Progress, migrate};

/// The format of one exported game (one NDJSON line).
pub const FORMAT: &str = "tabletally.game/1";

/// Whether a line of our own export is a game (its players and presets come first): what a
/// long export or import counts as its progress.
pub fn is_game_line(line: &[u8]) -> bool {
    // An export writes `format` first, without spaces.
    line.starts_with(concat!("{\"format\":\"", "tabletally.game/1", "\"").as_bytes())
}

/// Games read per page while exporting: memory stays flat whatever the club's size.
pub(crate) const EXPORT_PAGE: i64 = 100;

/// One line of an export.
#[derive(Debug, Serialize)]
struct ExportLine {
    format: &'static str,
    game: GameSummary,
    events: Vec<crate::views::EventView>,
}

/// The club's players and presets, then its games in the order they were played (read a page
/// at a time), one NDJSON line each (with its newline).
pub fn export(
    store: Arc<dyn Store>,
    club: String,
) -> impl Stream<Item = Result<Vec<u8>, StoreError>> + 'static {
    use futures_util::{StreamExt, TryStreamExt};
    let club_lines = {
        let (store, club) = (store.clone(), club.clone());
        futures_util::stream::once(async move { club::lines(store.as_ref(), &club).await })
            .map_ok(|lines| futures_util::stream::iter(lines.into_iter().map(Ok)))
            .try_flatten()
    };
    club_lines.chain(games(store, club))
}

/// The club's games, one NDJSON line each, in the order they were played.
fn games(
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
    "skipped": [{"game": "Coloretto", "plays": 12}],
    "players": {"imported": 5, "already_present": 0},
    "presets": {"imported": 1, "already_present": 0}
}))]
pub struct ImportReport {
    /// Games stored.
    pub imported: u64,
    /// Games whose id this club already has: nothing was changed.
    pub already_present: u64,
    /// Lines that were not imported, and why (the first 100); the other lines still were.
    pub failed: Vec<ImportFailure>,
    /// Lines not imported past the first 100 listed in `failed`: counted, not listed, so a
    /// report stays small whatever the file (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub failures_left_out: u64,
    /// Games among the failures, listed or not (what progress counts).
    #[serde(skip)]
    failed_games: u64,
    /// From other apps: plays of games tabletally does not keep, counted by game.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<other_apps::Skipped>,
    /// Players from `tabletally.player/1` lines (absent when none was stored or present).
    #[serde(skip_serializing_if = "Counted::is_empty")]
    pub players: Counted,
    /// Table presets from `tabletally.preset/1` lines (absent when none was stored or present).
    #[serde(skip_serializing_if = "Counted::is_empty")]
    pub presets: Counted,
}

/// Players or presets of an import.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Counted {
    /// Stored.
    pub imported: u64,
    /// This club already has it, as the file has it: nothing was changed.
    pub already_present: u64,
}

/// Failures a report lists; the rest are counted in `failures_left_out`.
pub const LISTED_FAILURES: usize = 100;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ImportReport {
    /// The games read so far: stored, present, or failed.
    pub fn games(&self) -> u64 {
        self.imported + self.already_present + self.failed_games
    }

    /// Counts a line that was not imported; the first [`LISTED_FAILURES`] are listed.
    pub fn refuse(&mut self, failure: ImportFailure) {
        self.failed_games += u64::from(failure.game_id.is_some());
        if self.failed.len() < LISTED_FAILURES {
            self.failed.push(failure);
        } else {
            self.failures_left_out += 1;
        }
    }

    /// Every line not imported, listed or not.
    pub fn failures(&self) -> u64 {
        self.failed.len() as u64 + self.failures_left_out
    }

    /// The report as it is answered in `catalogue`'s language: each failure's detail said in
    /// it (English is what the report serialises as otherwise).
    pub fn said_in(mut self, catalogue: &Catalogue) -> Self {
        for failure in &mut self.failed {
            failure.detail = Message::data(failure.detail.render(catalogue));
        }
        self
    }
}

impl Counted {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ImportFailure {
    /// Counted from 1: the line of an NDJSON file; from BG Stats the play's place in `plays`
    /// (1 is `plays[0]`); from BoardGameGeek the `<play>` element's place in the file.
    pub line: u64,
    /// The game's id, when the line is a game that names one (a player or preset line names
    /// its id in `detail`).
    pub game_id: Option<String>,
    /// The status the same request would get on its own: 400 unreadable, 409 conflict,
    /// 422 breaks a rule.
    pub status: u16,
    // Why, in the request's language (`Accept-Language`); ids, numbers, fields and the file's
    // values as the file has them.
    #[schema(value_type = String)]
    pub detail: Message,
}

/// The summary of an imported game; status and version come from its events.
#[derive(Debug)]
struct ImportSummary {
    id: String,
    game: String,
    started_at: Option<DateTime<Utc>>,
    /// When it last changed (absent in files from before it was kept: its last event's time).
    updated_at: Option<DateTime<Utc>>,
    /// The club player each seat names, by seat (1-based): where an import seats them when the
    /// club has that player.
    seated: Vec<Option<String>>,
}

#[derive(Debug)]
struct ImportEvent {
    seq: i64,
    id: String,
    event_type: String,
    data: Value,
    recorded_at: DateTime<Utc>,
    /// Who recorded it; absent or null in files from before it was kept.
    recorded_by: Option<String>,
    /// Absent: written by today's schema.
    schema_version: Option<i64>,
    /// Its place in the club's log where it comes from (kept only by `migrate`).
    position: Option<i64>,
}

#[derive(Debug)]
struct ImportLine {
    game: ImportSummary,
    events: Vec<ImportEvent>,
}

#[derive(Debug)]
struct StartedSeat {
    name: String,
    seat: Option<i64>,
    color: Option<String>,
}

#[derive(Debug)]
struct Started {
    players: Vec<StartedSeat>,
    options: Value,
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

/// [`import_line`] for `migrate`: each event also keeps its place in the club's log (the
/// target database is empty, so no other event holds it).
pub(crate) async fn copy_line(
    store: &dyn Store,
    club: &str,
    line_number: u64,
    line: &str,
    report: &mut ImportReport,
) {
    read_line(store, club, line_number, line, report, GameIds::Kept, true).await;
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
    read_line(store, club, line_number, line, report, ids, false).await;
}

async fn read_line(
    store: &dyn Store,
    club: &str,
    line_number: u64,
    line: &str,
    report: &mut ImportReport,
    ids: GameIds,
    keep_positions: bool,
) {
    // As a request body is read: a key named twice in one object is refused, not half-read.
    let outcome = match shape::object(line).and_then(|object| Ok((line_kind(&object)?, object))) {
        Ok((PLAYER_FORMAT, object)) => club::import_player(store, club, &object, report, ids).await,
        Ok((PRESET_FORMAT, object)) => club::import_preset(store, club, &object, report, ids).await,
        Ok((_, object)) => import_game(store, club, &object, report, ids, keep_positions).await,
        Err(detail) => Err((None, 400, detail)),
    };
    if let Err((game_id, status, detail)) = outcome {
        report.refuse(ImportFailure {
            line: line_number,
            game_id,
            status,
            detail,
        });
    }
}

/// The line's format, one of the three an import reads; said why not when it is none of them.
fn line_kind(line: &Map<String, Value>) -> Result<&'static str, Message> {
    let format = Fields::new(line, said!("server.api.import.whose.line"))
        .text("format", said!("server.api.import.what.format"))?;
    [PLAYER_FORMAT, PRESET_FORMAT, FORMAT]
        .into_iter()
        .find(|kind| *kind == format)
        .ok_or_else(|| {
            said!(
                "server.api.import.line.unknown_format",
                format = format!("{format:?}")
            )
        })
}

/// Imports a `tabletally.game/1` line.
async fn import_game(
    store: &dyn Store,
    club: &str,
    line: &Map<String, Value>,
    report: &mut ImportReport,
    ids: GameIds,
    keep_positions: bool,
) -> Result<(), LineError> {
    let (mut game, evaluation, seated) = check_line(line)?;
    game.keep_positions = keep_positions;
    if ids == GameIds::New {
        game.game.id = derived_id(club, &format!("tabletally:{}", game.game.id));
    }
    let id = game.game.id.clone();
    seat_by_id(store, club, &mut game, &seated, ids)
        .await
        .map_err(|e| stored_failure(&id, e))?;
    let result = |record: &_| game_result(record, &evaluation);
    match store.import_game(club, &game, &result).await {
        Ok(ImportOutcome::Imported) => {
            report.imported += 1;
            if report.imported == 1_000 || report.imported.is_multiple_of(10_000) {
                // A long import grows its tables from nearly empty: fresh planner statistics
                // keep its plans fit for them. A failure only costs speed.
                if let Err(e) = store.refresh_planner_statistics().await {
                    tracing::warn!(error = %e, "the planner's statistics could not be refreshed");
                }
            }
            Ok(())
        }
        Ok(ImportOutcome::AlreadyPresent) => {
            report.already_present += 1;
            Ok(())
        }
        Err(e) => Err(stored_failure(&id, e)),
    }
}

/// Why a checked game was not stored, as its line's failure.
fn stored_failure(id: &str, e: StoreError) -> LineError {
    match e {
        StoreError::Conflict(detail) => (Some(id.to_owned()), 409, detail),
        StoreError::UnknownPlayer(player) => (
            Some(id.to_owned()),
            409,
            said!(
                "server.api.import.game.player_merged_meanwhile",
                player = player
            ),
        ),
        e => {
            tracing::error!(error = %e, game = %id, "import failed");
            (
                Some(id.to_owned()),
                500,
                said!("server.api.import.game.not_stored"),
            )
        }
    }
}

/// Seats each player the game's summary names by id when the club has that player (the file's
/// players came first), so a merged player's games stay theirs and a renamed one's too;
/// the others are matched by name, as files of games alone always were. With new ids, the
/// copy's `game_started` names the copy's players.
async fn seat_by_id(
    store: &dyn Store,
    club: &str,
    game: &mut ImportedGame,
    seated: &[Option<String>],
    ids: GameIds,
) -> Result<(), StoreError> {
    let wanted: Vec<String> = seated
        .iter()
        .flatten()
        .map(|id| club::player_id(club, id, ids))
        .collect();
    let known: std::collections::HashSet<String> = if wanted.is_empty() {
        Default::default()
    } else {
        store
            .players_by_id(club, &wanted)
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    for (seat, id) in game.game.players.iter_mut().zip(seated) {
        seat.player_id = id
            .as_ref()
            .map(|id| club::player_id(club, id, ids))
            .filter(|id| known.contains(id));
    }
    if ids == GameIds::New
        && let Some(Value::Array(players)) = game.events[0].data.get_mut("players")
    {
        for player in players.iter_mut().filter_map(Value::as_object_mut) {
            player.remove("player_id");
        }
    }
    Ok(())
}

type LineError = (Option<String>, u16, Message);

/// Reads and checks one exported game: its fields, its numbering, and every event by the
/// rules as if appended in order; with the club player its summary names at each seat.
#[allow(clippy::type_complexity)]
fn check_line(
    line: &Map<String, Value>,
) -> Result<(ImportedGame, Evaluation, Vec<Option<String>>), LineError> {
    let game_id = line
        .get("game")
        .and_then(|g| g.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut parsed = read_game(line).map_err(|detail| (game_id, 400, detail))?;
    let named_seats = std::mem::take(&mut parsed.game.seated);
    let id = parsed.game.id.clone();
    let unprocessable = |detail: Message| (Some(id.clone()), 422, detail);
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(unprocessable(said!(
            "server.api.import.game.id_not_uuid",
            id = format!("{id:?}")
        )));
    }
    let kind = Game::from_id(&parsed.game.game).ok_or_else(|| {
        unprocessable(said!(
            "server.api.import.game.unknown_game",
            game = format!("{:?}", parsed.game.game),
            games = tabletally_domain::games::known_ids()
        ))
    })?;
    if parsed.events.len() > MAX_EVENTS_PER_GAME {
        return Err(unprocessable(said!(
            "server.api.import.game.too_many_events",
            most = MAX_EVENTS_PER_GAME,
            events = parsed.events.len()
        )));
    }
    for (i, event) in parsed.events.iter().enumerate() {
        if event.seq != i as i64 + 1 {
            return Err(unprocessable(said!(
                "server.api.import.game.seq_gap",
                position = i + 1,
                seq = event.seq
            )));
        }
        if let Err((at, detail)) = crate::append::check_event_size(&event.data) {
            return Err(unprocessable(said!(
                "server.api.import.game.event_fault",
                seq = event.seq,
                event_type = &event.event_type,
                detail = detail,
                at = format!("/data{at}")
            )));
        }
        if parsed.events[..i].iter().any(|e| e.id == event.id) {
            return Err(unprocessable(said!(
                "server.api.import.game.event_id_twice",
                id = &event.id,
                first = parsed.events[..i]
                    .iter()
                    .position(|e| e.id == event.id)
                    .map_or(0, |p| p + 1),
                second = i + 1
            )));
        }
    }
    let Some(first) = parsed
        .events
        .first()
        .filter(|e| e.event_type == GAME_STARTED)
    else {
        return Err(unprocessable(said!("server.api.import.game.no_start")));
    };
    let started = read_started(&first.data).map_err(|detail| {
        unprocessable(said!("server.api.import.game.start_fault", detail = detail))
    })?;
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
        unprocessable(said!(
            "server.api.import.game.start_refused",
            rule = e.said,
            at = format!("/data{}", e.pointer)
        ))
    })?;
    for (i, (given, seat)) in started.players.iter().zip(&seated).enumerate() {
        if seat.name != *given.name || given.seat.is_some_and(|s| s != i64::from(seat.seat)) {
            return Err(unprocessable(said!(
                "server.api.import.game.seat_out_of_order",
                player = i + 1,
                name = format!("{:?}", seat.name),
                seat = seat.seat
            )));
        }
    }
    let stored: Vec<StoredEvent> = parsed
        .events
        .into_iter()
        .map(|e| StoredEvent {
            position: e.position.unwrap_or(0),
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
    // The start first, on its own: a refusal of it is said in the request's language (the check
    // of the events after it would say a start it cannot replay as the server's own fault).
    let start_alone = kind.evaluate_with_facts(&start).map_err(|e| match e {
        tabletally_domain::log::LogError::Broken { seq, error } => unprocessable(said!(
            "server.api.import.game.start_does_not_replay",
            seq = seq,
            rule = error.said,
            at = format!("{:?}", error.pointer)
        )),
        // Not possible: event 1 is game_started.
        tabletally_domain::log::LogError::NoStart => {
            unprocessable(said!("server.api.import.game.no_start"))
        }
    })?;
    let evaluation = if rest.is_empty() {
        start_alone
    } else {
        kind.check_append(&start, &rest).map_err(|r| {
            let event = &stored[r.event_index + 1];
            unprocessable(if r.pointer.is_empty() {
                said!(
                    "server.api.import.game.breaks_a_rule",
                    seq = event.seq,
                    event_type = &event.event_type,
                    rule = r.said
                )
            } else {
                said!(
                    "server.api.import.game.breaks_a_rule_at",
                    seq = event.seq,
                    event_type = &event.event_type,
                    rule = r.said,
                    at = r.pointer
                )
            })
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
            updated_at: parsed
                .game
                .updated_at
                .unwrap_or(stored[stored.len() - 1].recorded_at),
            game,
            status: evaluation.status,
            events: stored,
            keep_positions: false,
        },
        evaluation,
        named_seats,
    ))
}

/// A `tabletally.game/1` line's fields, or the first that is not what it must be.
fn read_game(line: &Map<String, Value>) -> Result<ImportLine, Message> {
    let line = Fields::new(line, said!("server.api.import.whose.line"));
    let summary = line.object(
        "game",
        said!("server.api.import.what.game"),
        said!("server.api.import.whose.summary"),
    )?;
    let events = line.list("events", said!("server.api.import.what.events"))?;
    let mut seated = Vec::new();
    for (i, seat) in summary
        .optional_list("players", said!("server.api.import.what.seats"))?
        .iter()
        .enumerate()
    {
        let Value::Object(seat) = seat else {
            return Err(said!(
                "server.api.import.game.seat_not_an_object",
                seat = i + 1,
                found = shape::describe(seat)
            ));
        };
        let seat = Fields::new(seat, said!("server.api.import.whose.seat", seat = i + 1));
        let number = seat.optional_integer("seat", said!("server.api.import.what.seat_number"))?;
        let player =
            seat.optional_text("player_id", said!("server.api.import.what.seat_player"))?;
        // Seats outside 1 … 12 name nobody the game seats.
        let Some(index) = number
            .unwrap_or(i as i64 + 1)
            .checked_sub(1)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < 12)
        else {
            continue;
        };
        if seated.len() <= index {
            seated.resize(index + 1, None);
        }
        seated[index] = player.map(str::to_owned);
    }
    let game = ImportSummary {
        id: summary
            .text("id", said!("server.api.import.what.game_id"))?
            .to_owned(),
        game: summary
            .text("game", said!("server.api.import.what.game_kind"))?
            .to_owned(),
        started_at: summary
            .optional_time("started_at", said!("server.api.import.what.played_at"))?,
        updated_at: summary
            .optional_time("updated_at", said!("server.api.import.what.updated_at"))?,
        seated,
    };
    let mut read = Vec::with_capacity(events.len().min(MAX_EVENTS_PER_GAME + 1));
    for (i, event) in events.iter().enumerate() {
        let Value::Object(event) = event else {
            return Err(said!(
                "server.api.import.game.event_not_an_object",
                n = i + 1,
                found = shape::describe(event)
            ));
        };
        let event = Fields::new(event, said!("server.api.import.whose.event", n = i + 1));
        read.push(ImportEvent {
            seq: event.integer("seq", said!("server.api.import.what.seq"))?,
            id: event
                .text("id", said!("server.api.import.what.event_id"))?
                .to_owned(),
            event_type: event
                .text("type", said!("server.api.import.what.event_type"))?
                .to_owned(),
            data: event.map_get("data"),
            recorded_at: event.time("recorded_at", said!("server.api.import.what.recorded_at"))?,
            recorded_by: event
                .optional_text("recorded_by", said!("server.api.import.what.recorded_by"))?
                .map(str::to_owned),
            schema_version: event.optional_integer(
                "schema_version",
                said!("server.api.import.what.schema_version"),
            )?,
            position: event
                .optional_integer("position", said!("server.api.import.what.position"))?,
        });
    }
    Ok(ImportLine { game, events: read })
}

/// Event 1's data: the seats, options and start, or the first field that is not what it must be.
fn read_started(data: &Value) -> Result<Started, Message> {
    let Value::Object(data) = data else {
        return Err(said!(
            "server.api.import.game.data_not_an_object",
            found = shape::describe(data)
        ));
    };
    let data = Fields::new(data, said!("server.api.import.whose.data"));
    let mut players = Vec::new();
    for (i, player) in data
        .list("players", said!("server.api.import.what.players"))?
        .iter()
        .enumerate()
    {
        let Value::Object(player) = player else {
            return Err(said!(
                "server.api.import.game.player_not_an_object",
                n = i + 1,
                found = shape::describe(player)
            ));
        };
        let player = Fields::new(player, said!("server.api.import.whose.player", n = i + 1));
        players.push(StartedSeat {
            name: player
                .text("name", said!("server.api.import.what.player_name"))?
                .to_owned(),
            seat: player.optional_integer("seat", said!("server.api.import.what.player_seat"))?,
            color: player
                .optional_text("color", said!("server.api.import.what.player_colour"))?
                .map(str::to_owned),
        });
    }
    Ok(Started {
        players,
        options: data.map_get("options"),
        started_at: data.optional_time("started_at", said!("server.api.import.what.played_at"))?,
    })
}

#[cfg(test)]
mod tests;
