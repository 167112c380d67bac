//! What a game stream sends: each commit's `appended` frame, serialised once for all its
//! streams; the frames of a log after a version (a resumed stream's catch-up), made one at a
//! time; and the `snapshot` that opens a stream.

use std::sync::OnceLock;

use actix_web::web::Bytes;
use serde::Serialize;
use tabletally_domain::{Game, Scoreboard};

use crate::error::ApiError;
use crate::language::Language;
use crate::records::to_log_event;
use crate::store::{GameRecord, StoredEvent};
use crate::views::{EventView, GameSummary, ScoreView, score_view, score_view_in};

/// One accepted append as a game stream sends it.
#[derive(Debug)]
pub struct Frame {
    /// The game's version after the append: the SSE `id:`.
    pub version: i64,
    /// The seq of the append's first event.
    pub first_seq: i64,
    /// The whole SSE event in English, ready to write.
    pub sse: Bytes,
    /// What the frame says, to say it in another language: once per language for all the
    /// streams that speak it (French, Persian), and only when one of them does.
    parts: FrameParts,
    said: [OnceLock<Bytes>; 2],
}

#[derive(Debug)]
struct FrameParts {
    game: String,
    status: tabletally_domain::Status,
    events: Vec<EventView>,
    board: Scoreboard,
}

/// `data` of an `appended` event as written (the events borrowed from the frame).
#[derive(Serialize)]
struct AppendedDataRef<'a> {
    version: i64,
    events: &'a [EventView],
    score: ScoreView,
}

impl Frame {
    /// The whole SSE event in `language`, ready to write.
    pub fn sse_in(&self, language: Language) -> Bytes {
        let slot = match language {
            Language::English => return self.sse.clone(),
            Language::French => &self.said[0],
            Language::Persian => &self.said[1],
        };
        slot.get_or_init(|| {
            let parts = &self.parts;
            let data = AppendedDataRef {
                version: self.version,
                events: &parts.events,
                score: score_view_in(
                    language,
                    parts.game.clone(),
                    parts.status,
                    self.version as u64,
                    parts.board.clone(),
                ),
            };
            sse("appended", self.version, &data)
        })
        .clone()
    }
}

/// `data` of an `appended` event (the document's schema; frames are written from
/// `AppendedDataRef`, the same fields).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[allow(dead_code)]
pub struct AppendedData {
    /// The game's version after the append.
    pub version: i64,
    /// The events the append stored, as `GET …/events` shows them.
    pub events: Vec<EventView>,
    /// The scoreboard after the append.
    pub score: ScoreView,
}

/// `data` of the `snapshot` event that opens a game stream.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SnapshotData {
    pub game: GameSummary,
    pub score: ScoreView,
}

/// One SSE event: `event:`, `id:` and one `data:` line (compact JSON has no line breaks),
/// the JSON written straight after its prefix.
pub(crate) fn sse(event: &str, id: i64, data: &impl Serialize) -> Bytes {
    let mut out = Vec::with_capacity(2048);
    out.extend_from_slice(format!("event: {event}\nid: {id}\ndata: ").as_bytes());
    let prefix = out.len();
    if let Err(e) = serde_json::to_writer(&mut out, data) {
        tracing::error!(error = %e, "an SSE payload did not serialise");
        out.truncate(prefix);
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

pub(super) fn appended_frame(
    game: &GameRecord,
    events: Vec<StoredEvent>,
    board: Scoreboard,
) -> Frame {
    let status = tabletally_domain::Status::parse(&game.status)
        .unwrap_or(tabletally_domain::Status::InProgress);
    let first_seq = events.first().map_or(game.version, |e| e.seq);
    let events: Vec<EventView> = events.into_iter().map(EventView::from).collect();
    let data = AppendedDataRef {
        version: game.version,
        events: &events,
        score: score_view(
            game.game.clone(),
            status,
            game.version as u64,
            board.clone(),
        ),
    };
    let sse = sse("appended", game.version, &data);
    Frame {
        version: game.version,
        first_seq,
        sse,
        parts: FrameParts {
            game: game.game.clone(),
            status,
            events,
            board,
        },
        said: Default::default(),
    }
}

/// The seq where the log's last append begins.
pub(super) fn last_append_start(log: &[StoredEvent]) -> Option<i64> {
    appends(log).last().map(|a| a[0].seq)
}

/// The log cut into its appends: one append's events were written by one commit, so they
/// share their `recorded_at` and follow each other.
pub(super) fn appends(log: &[StoredEvent]) -> Vec<&[StoredEvent]> {
    let mut appends = Vec::new();
    let mut start = 0;
    for i in 1..=log.len() {
        let ends = i == log.len()
            || log[i].recorded_at != log[i - 1].recorded_at
            || log[i].seq != log[i - 1].seq + 1;
        if ends {
            appends.push(&log[start..i]);
            start = i;
        }
    }
    appends
}

/// One `appended` frame per append after version `after`, each with the scoreboard after it.
pub fn frames_after(
    game: &GameRecord,
    log: &[StoredEvent],
    after: i64,
) -> Result<Vec<Frame>, ApiError> {
    let mut frames = FramesAfter::new(game.clone(), log.to_vec(), after)?;
    std::iter::from_fn(|| frames.next_frame()).collect()
}

/// [`frames_after`], made one at a time as a stream sends them: a phone resuming a long game
/// from far back holds the log and one frame, not every frame at once.
pub struct FramesAfter {
    kind: Game,
    game: GameRecord,
    log: Vec<StoredEvent>,
    replay: Vec<tabletally_domain::LogEvent>,
    /// Each append's events, as ranges of the log, the next first.
    appends: std::collections::VecDeque<std::ops::Range<usize>>,
    after: i64,
}

impl FramesAfter {
    pub fn new(game: GameRecord, mut log: Vec<StoredEvent>, after: i64) -> Result<Self, ApiError> {
        let kind = Game::from_id(&game.game)
            .ok_or_else(|| ApiError::Internal(format!("unknown stored game {}", game.game)))?;
        // Each event's data is held once, by the replay; a frame's events take theirs back.
        let replay = log
            .iter_mut()
            .map(|e| {
                let data = std::mem::take(&mut e.data);
                let event = to_log_event(e);
                tabletally_domain::LogEvent { data, ..event }
            })
            .collect();
        let mut start = 0;
        let appends = appends(&log)
            .iter()
            .map(|append| {
                let range = start..start + append.len();
                start = range.end;
                range
            })
            .filter(|range| log[range.end - 1].seq > after)
            .collect();
        Ok(Self {
            kind,
            game,
            log,
            replay,
            appends,
            after,
        })
    }

    /// The next append's frame; `None` after the last.
    pub fn next_frame(&mut self) -> Option<Result<Frame, ApiError>> {
        let range = self.appends.pop_front()?;
        let end = self.log[range.end - 1].seq;
        // A resume inside an append (an id this server never sent) gets the rest of it.
        let after = self.after;
        let events: Vec<StoredEvent> = self.log[range.clone()]
            .iter()
            .zip(&self.replay[range])
            .filter(|(e, _)| e.seq > after)
            .map(|(e, replayed)| StoredEvent {
                data: replayed.data.clone(),
                ..e.clone()
            })
            .collect();
        let evaluation = match self.kind.evaluate(&self.replay[..end as usize]) {
            Ok(evaluation) => evaluation,
            Err(e) => {
                return Some(Err(ApiError::Internal(format!(
                    "game {}: {e}",
                    self.game.id
                ))));
            }
        };
        let at_end = GameRecord {
            version: end,
            status: evaluation.status.as_str().to_owned(),
            ..self.game.clone()
        };
        Some(Ok(appended_frame(&at_end, events, evaluation.scoreboard)))
    }
}

/// The `snapshot` event, its score said in `language`.
pub(crate) fn snapshot(
    game: &GameRecord,
    log: &[StoredEvent],
    language: Language,
) -> Result<Bytes, ApiError> {
    let kind = Game::from_id(&game.game)
        .ok_or_else(|| ApiError::Internal(format!("unknown stored game {}", game.game)))?;
    let replay: Vec<_> = log.iter().map(to_log_event).collect();
    let evaluation = kind
        .evaluate(&replay)
        .map_err(|e| ApiError::Internal(format!("game {}: {e}", game.id)))?;
    let data = SnapshotData {
        game: GameSummary::from(game.clone()),
        score: score_view_in(
            language,
            game.game.clone(),
            evaluation.status,
            evaluation.version,
            evaluation.scoreboard,
        ),
    };
    Ok(sse("snapshot", game.version, &data))
}
