//! What an append request amounts to, decided inside the store's transaction from the game's
//! stored log: a retry of stored events, a conflict, a rule violation, or events to write.
//!
//! Order of checks (API.md): idempotent retry first, then `expected_version`, then the rules.

use tabletally_domain::Game;
use tabletally_domain::log::{Evaluation, LogEvent, NewEvent as DomainEvent, Rejection, Status};
use tabletally_domain::score::Scoreboard;

use crate::config::MAX_EVENTS_PER_GAME;
use crate::store::{GameRecord, GameResult, NewEvent, PlayerResult, StoredEvent};

#[derive(Debug, Clone)]
pub struct AppendRequest {
    pub expected_version: Option<i64>,
    pub events: Vec<NewEvent>,
}

#[derive(Debug)]
pub enum Decision {
    /// Every event of the request is already stored with the same content: answer with them.
    AlreadyStored { seqs: Vec<i64> },
    /// Write these events; the game's status afterwards, and its result when finished.
    Append {
        events: Vec<NewEvent>,
        status: Status,
        result: Option<GameResult>,
        /// Whether the statistics read models are to be updated (off only for measuring).
        read_models: bool,
        /// The scoreboard after these events, for the game's live streams.
        scoreboard: Box<Scoreboard>,
    },
}

impl Decision {
    /// Leaves the statistics read models alone (`TABLETALLY_READ_MODELS=off`).
    pub fn skip_read_models(&mut self) {
        if let Decision::Append {
            result,
            read_models,
            ..
        } = self
        {
            *result = None;
            *read_models = false;
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// 409: the client's view of the game is out of date.
    #[error("expected version {expected}, but the game is at version {current}")]
    StaleVersion { expected: i64, current: i64 },
    /// 409: an event id is already stored with another type or data.
    #[error("event id {id} is already stored as event {seq} with different content")]
    IdReused { index: usize, id: String, seq: i64 },
    /// 409: a retry that mixes stored and new events (a batch is stored whole or not at all).
    #[error(
        "events {stored:?} of this request are already stored but others are not; send only the new events"
    )]
    PartlyStored { stored: Vec<String> },
    /// 422: the game's log would grow past [`MAX_EVENTS_PER_GAME`].
    #[error("a game's log holds at most {max} events and this one has {stored}; start a new game", max = MAX_EVENTS_PER_GAME)]
    GameTooLong { stored: usize },
    /// 422: the same event id twice in one request.
    #[error("event id {id} appears twice in this request")]
    DuplicateId { index: usize, id: String },
    /// 422: a rule of the game or of the log.
    #[error(transparent)]
    Rule(Rejection),
    /// 500: the stored game cannot be replayed (unknown game id or a log that no longer replays).
    #[error("stored game cannot be replayed: {0}")]
    Broken(String),
}

pub fn decide(
    game: &GameRecord,
    log: &[StoredEvent],
    request: &AppendRequest,
) -> Result<Decision, Refused> {
    for (index, event) in request.events.iter().enumerate() {
        if request.events[..index].iter().any(|e| e.id == event.id) {
            return Err(Refused::DuplicateId {
                index,
                id: event.id.clone(),
            });
        }
    }
    let mut stored_seqs = Vec::new();
    let mut stored_ids = Vec::new();
    for (index, event) in request.events.iter().enumerate() {
        if let Some(stored) = log.iter().find(|s| s.id == event.id) {
            if stored.event_type != event.event_type || stored.data != event.data {
                return Err(Refused::IdReused {
                    index,
                    id: event.id.clone(),
                    seq: stored.seq,
                });
            }
            stored_seqs.push(stored.seq);
            stored_ids.push(event.id.clone());
        }
    }
    if !request.events.is_empty() && stored_seqs.len() == request.events.len() {
        return Ok(Decision::AlreadyStored { seqs: stored_seqs });
    }
    if !stored_ids.is_empty() {
        return Err(Refused::PartlyStored { stored: stored_ids });
    }
    if log.len() + request.events.len() > MAX_EVENTS_PER_GAME {
        return Err(Refused::GameTooLong { stored: log.len() });
    }
    if let Some(expected) = request.expected_version
        && expected != game.version
    {
        return Err(Refused::StaleVersion {
            expected,
            current: game.version,
        });
    }
    let kind = Game::from_id(&game.game)
        .ok_or_else(|| Refused::Broken(format!("unknown game {}", game.game)))?;
    let stored: Vec<LogEvent> = log.iter().map(to_log_event).collect();
    let batch: Vec<DomainEvent> = request
        .events
        .iter()
        .map(|e| DomainEvent {
            event_type: e.event_type.clone(),
            data: e.data.clone(),
        })
        .collect();
    let evaluation = kind.check_append(&stored, &batch).map_err(Refused::Rule)?;
    let result = game_result(game, &evaluation)?;
    Ok(Decision::Append {
        events: request.events.clone(),
        status: evaluation.status,
        result,
        read_models: true,
        scoreboard: Box::new(evaluation.scoreboard),
    })
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

/// What a finished game puts into the statistics (`None` while unfinished or abandoned):
/// the scoreboard's totals and ranks and the game's facts, by club player id.
pub fn game_result(
    game: &GameRecord,
    evaluation: &Evaluation,
) -> Result<Option<GameResult>, Refused> {
    if evaluation.status != Status::Finished {
        return Ok(None);
    }
    let player_id = |name: &str| {
        game.players
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.player_id.clone())
            .ok_or_else(|| Refused::Broken(format!("score names {name:?}, who is not seated")))
    };
    let players = evaluation
        .scoreboard
        .players
        .iter()
        .map(|p| {
            Ok(PlayerResult {
                player_id: player_id(&p.name)?,
                seat: i64::from(p.seat),
                total: p.total,
                rank: i64::from(p.rank),
                won: p.rank == 1,
            })
        })
        .collect::<Result<_, Refused>>()?;
    let facts = evaluation
        .facts
        .iter()
        .map(|f| {
            Ok((
                f.player.as_deref().map(player_id).transpose()?,
                f.key.clone(),
                f.value,
            ))
        })
        .collect::<Result<_, Refused>>()?;
    let variant = Game::from_id(&game.game).and_then(|kind| kind.variant(&game.options));
    Ok(Some(GameResult {
        players,
        facts,
        variant: variant.map(|v| v.id.to_owned()),
        lower_wins: evaluation.scoreboard.lower_wins,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use serde_json::json;

    fn game(version: i64) -> GameRecord {
        GameRecord {
            id: "g".into(),
            game: "mint-condition".into(),
            status: "in_progress".into(),
            version,
            options: json!({}),
            players: vec![],
            started_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    fn stored(seq: i64) -> StoredEvent {
        StoredEvent {
            position: seq,
            seq,
            id: format!("e{seq}"),
            event_type: "abandon".into(),
            schema_version: 1,
            data: json!({}),
            recorded_at: Utc::now(),
            recorded_by: None,
        }
    }

    fn request(ids: &[&str], expected_version: Option<i64>) -> AppendRequest {
        AppendRequest {
            expected_version,
            events: ids
                .iter()
                .map(|id| NewEvent {
                    id: (*id).into(),
                    event_type: "abandon".into(),
                    data: json!({}),
                    recorded_by: None,
                })
                .collect(),
        }
    }

    #[test]
    fn a_game_log_cannot_grow_past_its_limit() {
        let log: Vec<StoredEvent> = (1..=MAX_EVENTS_PER_GAME as i64).map(stored).collect();

        let refused = decide(&game(log.len() as i64), &log, &request(&["new"], None)).unwrap_err();

        assert!(
            matches!(refused, Refused::GameTooLong { stored } if stored == MAX_EVENTS_PER_GAME)
        );
    }

    #[test]
    fn a_retry_of_stored_events_is_answered_before_the_version_check() {
        let log: Vec<StoredEvent> = (1..=3).map(stored).collect();

        let decision = decide(&game(3), &log, &request(&["e2", "e3"], Some(1))).unwrap();

        assert!(matches!(decision, Decision::AlreadyStored { seqs } if seqs == vec![2, 3]));
    }

    #[test]
    fn a_batch_mixing_stored_and_new_events_is_a_conflict() {
        let log: Vec<StoredEvent> = (1..=3).map(stored).collect();

        let refused = decide(&game(3), &log, &request(&["e3", "new"], None)).unwrap_err();

        assert!(matches!(refused, Refused::PartlyStored { .. }));
    }

    #[test]
    fn the_same_id_twice_in_one_request_is_refused() {
        let refused = decide(&game(1), &[stored(1)], &request(&["x", "x"], None)).unwrap_err();

        assert!(matches!(refused, Refused::DuplicateId { index: 1, .. }));
    }
}
