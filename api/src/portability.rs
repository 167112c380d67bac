//! A club's history in and out, as `tabletally.game/1` NDJSON: one game a line, its summary and
//! every stored event (retracted and corrected ones included) with its seq, id, type, data,
//! schema version and time. The event log is the source of truth, so a game moves whole: an
//! imported game is checked by the rules as if its events were appended, and stored with its
//! ids, so a second import of the same file changes nothing.
//!
//! Used by `GET /v1/export`, `POST /v1/import` and the `tabletally export|import` commands.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use futures_util::Stream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabletally_domain::log::{GAME_STARTED, LogEvent, NewEvent, SCHEMA_VERSION};
use tabletally_domain::{Evaluation, Game};
use utoipa::ToSchema;

use crate::append::{game_result, to_log_event};
use crate::config::MAX_EVENTS_PER_GAME;
use crate::routes::{GameSummary, event_views};
use crate::store::{ImportOutcome, ImportedGame, NewGame, NewSeat, Store, StoreError, StoredEvent};

/// The format of one exported game (one NDJSON line).
pub const FORMAT: &str = "tabletally.game/1";

/// Games read per page while exporting: memory stays flat whatever the club's size.
const EXPORT_PAGE: i64 = 100;

/// One line of an export.
#[derive(Debug, Serialize)]
struct ExportLine {
    format: &'static str,
    game: GameSummary,
    events: Vec<crate::routes::EventView>,
}

/// The club's games, one NDJSON line each (with its newline), oldest id first, read a page
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
pub struct ImportReport {
    /// Games stored.
    pub imported: u64,
    /// Games whose id this club already has: nothing was changed.
    pub already_present: u64,
    /// Lines that were not imported, and why; the other lines still were.
    pub failed: Vec<ImportFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ImportFailure {
    /// 1-based line number in the file.
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
    let mut fail = |game_id: Option<String>, status: u16, detail: String| {
        report.failed.push(ImportFailure {
            line: line_number,
            game_id,
            status,
            detail,
        });
    };
    let (game, evaluation) = match check_line(line) {
        Ok(checked) => checked,
        Err((game_id, status, detail)) => return fail(game_id, status, detail),
    };
    let id = game.game.id.clone();
    let result = |record: &_| game_result(record, &evaluation);
    match store.import_game(club, &game, &result).await {
        Ok(ImportOutcome::Imported) => report.imported += 1,
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
    let parsed: ImportLine = serde_json::from_str(line).map_err(|e| {
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
            unprocessable(format!(
                "event {} ({}) breaks a rule: {} (at {})",
                event.seq, event.event_type, r.rule, r.pointer
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

/// Progress of a long run on standard error: one line rewritten in place on a terminal, a log
/// line every few seconds otherwise.
pub struct Progress {
    what: &'static str,
    done: u64,
    terminal: bool,
    last: std::time::Instant,
}

impl Progress {
    pub fn new(what: &'static str) -> Self {
        use std::io::IsTerminal;
        Self {
            what,
            done: 0,
            terminal: std::io::stderr().is_terminal(),
            last: std::time::Instant::now(),
        }
    }

    pub fn tick(&mut self) {
        self.done += 1;
        let every = if self.terminal {
            std::time::Duration::from_millis(200)
        } else {
            std::time::Duration::from_secs(5)
        };
        if self.last.elapsed() >= every {
            self.last = std::time::Instant::now();
            self.show();
        }
    }

    pub fn finish(&mut self) {
        self.show();
        if self.terminal {
            eprintln!();
        }
    }

    fn show(&self) {
        if self.terminal {
            eprint!("\r{}: {} games", self.what, self.done);
        } else {
            tracing::info!(games = self.done, "{}", self.what);
        }
    }
}

/// Why `tabletally migrate` stopped.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("the target database already holds {0} club(s); migrate into an empty database")]
    TargetNotEmpty(usize),
    #[error("game {game} of club {club} could not be copied: {detail}")]
    Copy {
        club: String,
        game: String,
        detail: String,
    },
    #[error("after the copy, {0}")]
    Differs(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a migration copied and checked.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    pub clubs: u64,
    pub games: u64,
    /// Statistics answers compared on both databases.
    pub statistics: u64,
}

/// Copies every club — its token hash, players with their ids, and every game through the
/// import path — from `source` into the empty `target`, then checks that every game and every
/// statistic answers the same on both.
pub async fn migrate(source: Arc<dyn Store>, target: &dyn Store) -> Result<Migrated, MigrateError> {
    let already = target.clubs().await?.len();
    if already > 0 {
        return Err(MigrateError::TargetNotEmpty(already));
    }
    let clubs = source.clubs().await?;
    let mut progress = Progress::new("copied");
    for club in &clubs {
        target.copy_club(club).await?;
        let mut lines = std::pin::pin!(export(source.clone(), club.id.clone()));
        while let Some(line) = futures_util::TryStreamExt::try_next(&mut lines).await? {
            let text = String::from_utf8_lossy(&line);
            let mut report = ImportReport::default();
            import_line(
                target,
                &club.id,
                progress.done + 1,
                text.trim_end(),
                &mut report,
            )
            .await;
            if let Some(failure) = report.failed.pop() {
                return Err(MigrateError::Copy {
                    club: club.id.clone(),
                    game: failure.game_id.unwrap_or_default(),
                    detail: failure.detail,
                });
            }
            progress.tick();
        }
    }
    progress.finish();
    let mut migrated = verify(source.as_ref(), target, &clubs).await?;
    migrated.clubs = clubs.len() as u64;
    Ok(migrated)
}

/// Every game's log and score, and every statistic, compared on both databases.
async fn verify(
    source: &dyn Store,
    target: &dyn Store,
    clubs: &[crate::store::ClubCopy],
) -> Result<Migrated, MigrateError> {
    use crate::store::StatsFilter;
    let differs = |what: String| MigrateError::Differs(what);
    let mut checked = Migrated::default();
    let mut progress = Progress::new("checked");
    for club in clubs {
        let copied: Vec<_> = target
            .clubs()
            .await?
            .into_iter()
            .filter(|c| c.id == club.id)
            .collect();
        if copied.as_slice() != std::slice::from_ref(club) {
            return Err(differs(format!(
                "club {} (its name, token or players) differs",
                club.id
            )));
        }
        let mut after: Option<String> = None;
        loop {
            let ids = source
                .club_game_ids(&club.id, after.as_deref(), EXPORT_PAGE)
                .await?;
            let Some(last) = ids.last() else { break };
            after = Some(last.clone());
            for id in &ids {
                let (a, b) = (
                    source.events(&club.id, id).await?,
                    target.events(&club.id, id).await?,
                );
                let (Some((game_a, log_a)), Some((game_b, log_b))) = (a, b) else {
                    return Err(differs(format!("game {id} is missing")));
                };
                let same_log = log_a.len() == log_b.len()
                    && log_a.iter().zip(&log_b).all(|(x, y)| {
                        (
                            x.seq,
                            &x.id,
                            &x.event_type,
                            &x.data,
                            x.schema_version,
                            x.recorded_at,
                        ) == (
                            y.seq,
                            &y.id,
                            &y.event_type,
                            &y.data,
                            y.schema_version,
                            y.recorded_at,
                        )
                    });
                if !same_log
                    || (game_a.status.as_str(), game_a.version)
                        != (game_b.status.as_str(), game_b.version)
                {
                    return Err(differs(format!("game {id}'s log or status differs")));
                }
                let kind = Game::from_id(&game_a.game)
                    .ok_or_else(|| differs(format!("game {id} has an unknown kind")))?;
                let score = |log: &[StoredEvent]| {
                    kind.evaluate(&log.iter().map(to_log_event).collect::<Vec<_>>())
                        .map(|e| e.scoreboard)
                        .map_err(|e| differs(format!("game {id} does not replay: {e}")))
                };
                if score(&log_a)? != score(&log_b)? {
                    return Err(differs(format!("game {id}'s score differs")));
                }
                checked.games += 1;
                progress.tick();
            }
        }
        let mut filters = vec![StatsFilter::default()];
        for kind in Game::ALL {
            let variants = std::iter::once("").chain(kind.variants().iter().map(|v| v.id));
            for variant in variants {
                filters.push(StatsFilter {
                    game: Some(kind.id().to_owned()),
                    variant: Some(variant.to_owned()),
                    ..StatsFilter::default()
                });
            }
        }
        for filter in &filters {
            let sorted = |mut rows: Vec<crate::store::LeaderRow>| {
                rows.sort_by(|x, y| x.player_id.cmp(&y.player_id));
                rows
            };
            if sorted(source.leaderboard(&club.id, filter).await?)
                != sorted(target.leaderboard(&club.id, filter).await?)
            {
                return Err(differs(format!(
                    "club {}'s leaderboard ({:?}) differs",
                    club.id, filter.game
                )));
            }
            if let Some(game) = &filter.game
                && source.game_stats(&club.id, game, filter).await?
                    != target.game_stats(&club.id, game, filter).await?
            {
                return Err(differs(format!(
                    "club {}'s statistics of {game} differ",
                    club.id
                )));
            }
            checked.statistics += 2;
        }
        for player in &club.players {
            let filter = StatsFilter::default();
            if source
                .results_of_player(&club.id, &player.id, &filter)
                .await?
                != target
                    .results_of_player(&club.id, &player.id, &filter)
                    .await?
            {
                return Err(differs(format!("player {}'s results differ", player.name)));
            }
            checked.statistics += 1;
        }
    }
    progress.finish();
    Ok(checked)
}
