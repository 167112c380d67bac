//! What an append request amounts to, decided inside the store's transaction from the game as
//! held (its log replayed, from the state cache or the database): a retry of stored events, a
//! conflict, a rule violation, or events to write.
//!
//! Order of checks (API.md): idempotent retry first, then `expected_version`, then the rules.

use tabletally_domain::log::{Evaluation, NewEvent as DomainEvent, Rejection, Status};
use tabletally_domain::score::Scoreboard;

use crate::config::{MAX_EVENT_DATA_BYTES, MAX_EVENTS_PER_GAME, MAX_REASON_CHARS};
use crate::records::{GameRecord, GameResult, HeldGame, NewEvent, PlayerResult, StoredEvent};

/// Whether an event's data stays within what any legal event needs: its size, and a reason's
/// length. `Err` names the field (a pointer into the data) and says why, in players' words.
pub fn check_event_size(
    data: &serde_json::Value,
) -> Result<(), (String, tabletally_domain::Message)> {
    if let Some(reason) = data.get("reason").and_then(serde_json::Value::as_str) {
        let length = reason.chars().count();
        if length > MAX_REASON_CHARS {
            return Err((
                "/reason".into(),
                tabletally_domain::said!(
                    "server.api.events.reason_too_long",
                    most = MAX_REASON_CHARS,
                    length = length
                ),
            ));
        }
    }
    let size = json_size(data);
    if size > MAX_EVENT_DATA_BYTES {
        return Err((
            String::new(),
            tabletally_domain::said!(
                "server.api.events.data_too_large",
                most = MAX_EVENT_DATA_BYTES,
                size = size
            ),
        ));
    }
    Ok(())
}

/// Whether a game's or a preset's options stay within what a whole custom deck needs; `Err`
/// says why, in players' words (the field is `/options`).
pub fn check_options_size(options: &serde_json::Value) -> Result<(), tabletally_domain::Message> {
    let size = json_size(options);
    if size > crate::config::MAX_OPTIONS_BYTES {
        return Err(tabletally_domain::said!(
            "server.api.games.options_too_large",
            most = crate::config::MAX_OPTIONS_BYTES,
            size = size
        ));
    }
    Ok(())
}

/// A value's size as compact JSON, counted without building the text.
pub fn json_size(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[derive(Debug, Clone)]
pub struct AppendRequest {
    pub expected_version: Option<i64>,
    pub events: Vec<NewEvent>,
    /// Update the statistics read models (off only for measuring: `TABLETALLY_READ_MODELS=off`).
    pub read_models: bool,
}

#[derive(Debug)]
pub enum Decision {
    /// Every event of the request is already stored with the same content: answer with them.
    AlreadyStored { events: Vec<StoredEvent> },
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

impl Refused {
    /// What the client is told, in the catalogues' words (the `Display` above is for the log).
    pub fn said(&self) -> tabletally_domain::Message {
        match self {
            Refused::StaleVersion { expected, current } => tabletally_domain::said!(
                "server.api.append.stale_version",
                expected = expected,
                current = current
            ),
            Refused::IdReused { id, seq, .. } => {
                tabletally_domain::said!("server.api.append.id_reused", id = id, seq = seq)
            }
            Refused::PartlyStored { stored } => tabletally_domain::said!(
                "server.api.append.partly_stored",
                ids = format!("{stored:?}")
            ),
            Refused::GameTooLong { stored } => tabletally_domain::said!(
                "server.api.append.game_too_long",
                most = MAX_EVENTS_PER_GAME,
                stored = stored
            ),
            Refused::DuplicateId { id, .. } => {
                tabletally_domain::said!("server.api.append.duplicate_id", id = id)
            }
            Refused::Rule(rejection) => rejection.said.clone(),
            // Never shown: a broken game is an internal error.
            Refused::Broken(_) => tabletally_domain::said!("server.problem.internal.detail"),
        }
    }

    /// Whether the held state is as it was before the refused decision: always, but when the
    /// stored game turned out broken after the events were applied (its result names a player
    /// who is not seated).
    pub fn left_the_state(&self) -> bool {
        !matches!(self, Refused::Broken(_))
    }
}

/// The request's events as the domain checks them.
pub fn domain_events(request: &AppendRequest) -> Vec<DomainEvent> {
    request
        .events
        .iter()
        .map(|e| DomainEvent {
            event_type: e.event_type.clone(),
            data: e.data.clone(),
        })
        .collect()
}

/// Decides a request against the game as held (its row and replayed state, read under the
/// game's lock; its log too when [`HeldGame::needs_log`] said so). On `Append` the held state
/// has advanced past the new events; on a refusal that [`Refused::left_the_state`] it is as it
/// was (else it is to be dropped). Either way the log is let go: the game is held without it.
pub fn decide(held: &mut HeldGame, request: &AppendRequest) -> Result<Decision, Refused> {
    let decided = decide_held(held, request);
    held.let_go_of_log();
    decided
}

fn decide_held(held: &mut HeldGame, request: &AppendRequest) -> Result<Decision, Refused> {
    for (index, event) in request.events.iter().enumerate() {
        if request.events[..index].iter().any(|e| e.id == event.id) {
            return Err(Refused::DuplicateId {
                index,
                id: event.id.clone(),
            });
        }
    }
    if held.needs_log(request) {
        return Err(Refused::Broken(
            "the append needs the game's log, let go".into(),
        ));
    }
    let mut stored_events = Vec::new();
    let mut stored_ids = Vec::new();
    for (index, event) in request.events.iter().enumerate() {
        let Some(seq) = held.seq_of(&event.id) else {
            continue;
        };
        let stored = held
            .stored(seq)
            .ok_or_else(|| Refused::Broken(format!("event {seq} is not held")))?;
        if stored.event_type != event.event_type || stored.data != event.data {
            return Err(Refused::IdReused {
                index,
                id: event.id.clone(),
                seq,
            });
        }
        stored_ids.push(event.id.clone());
        stored_events.push(stored);
    }
    if !request.events.is_empty() && stored_events.len() == request.events.len() {
        return Ok(Decision::AlreadyStored {
            events: stored_events,
        });
    }
    if !stored_ids.is_empty() {
        return Err(Refused::PartlyStored { stored: stored_ids });
    }
    let events = held.state.version() as usize;
    if events + request.events.len() > MAX_EVENTS_PER_GAME {
        return Err(Refused::GameTooLong { stored: events });
    }
    let game = &held.game;
    if let Some(expected) = request.expected_version
        && expected != game.version
    {
        return Err(Refused::StaleVersion {
            expected,
            current: game.version,
        });
    }
    let evaluation = held
        .state
        .append(&domain_events(request))
        .map_err(Refused::Rule)?;
    let result = game_result(&held.game, &evaluation)?;
    let mut decision = Decision::Append {
        events: request.events.clone(),
        status: evaluation.status,
        result,
        read_models: true,
        scoreboard: Box::new(evaluation.scoreboard),
    };
    // Measuring only: without read models the statistics stay as they were.
    if !request.read_models {
        decision.skip_read_models();
    }
    Ok(decision)
}

/// What a finished game puts into the statistics (`None` while unfinished or abandoned, or
/// when its typed-in result is kept out of them):
/// the scoreboard's totals and ranks and the game's facts, by club player id.
pub fn game_result(
    game: &GameRecord,
    evaluation: &Evaluation,
) -> Result<Option<GameResult>, Refused> {
    if evaluation.status != Status::Finished || !evaluation.in_statistics {
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
    Ok(Some(GameResult {
        players,
        facts,
        variant: crate::records::variant_of(&game.game, &game.options),
        lower_wins: evaluation.scoreboard.lower_wins,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::StoredEvent;
    use chrono::Utc;
    use serde_json::json;
    use tabletally_domain::Game;

    /// A Mint Condition game for Ann and Bo, then `events - 1` events: abandon, retract it, …
    fn held(events: i64) -> HeldGame {
        let log = (1..=events)
            .map(|seq| {
                let (event_type, data) = match seq {
                    1 => (
                        "game_started",
                        json!({"game": "mint-condition", "players": [
                            {"name": "Ann", "seat": 1}, {"name": "Bo", "seat": 2}
                        ], "options": Game::MintCondition.default_options()}),
                    ),
                    even if even % 2 == 0 => ("abandon", json!({})),
                    odd => ("retract", json!({"seq": odd - 1})),
                };
                StoredEvent {
                    position: seq,
                    seq,
                    id: format!("e{seq}"),
                    event_type: event_type.into(),
                    schema_version: i64::from(tabletally_domain::log::SCHEMA_VERSION),
                    data,
                    recorded_at: Utc::now(),
                    recorded_by: None,
                }
            })
            .collect::<Vec<_>>();
        let game = GameRecord {
            id: "g".into(),
            game: "mint-condition".into(),
            status: "in_progress".into(),
            version: events,
            options: json!({}).into(),
            players: vec![],
            started_at: Utc::now(),
            updated_at: Utc::now(),
        };
        HeldGame::replay(game, log).expect("the log replays")
    }

    /// A request that sends events `seqs` of [`held`] again, then new abandons named `new`.
    fn request(
        held: &HeldGame,
        seqs: &[i64],
        new: &[&str],
        expected: Option<i64>,
    ) -> AppendRequest {
        let again = seqs.iter().map(|seq| {
            let stored = held.stored(*seq).expect("a stored event");
            NewEvent {
                id: stored.id,
                event_type: stored.event_type,
                data: stored.data,
                recorded_by: None,
            }
        });
        let fresh = new.iter().map(|id| NewEvent {
            id: (*id).into(),
            event_type: "abandon".into(),
            data: json!({}),
            recorded_by: None,
        });
        AppendRequest {
            expected_version: expected,
            events: again.chain(fresh).collect(),
            read_models: true,
        }
    }

    #[test]
    fn a_game_found_broken_after_its_events_were_applied_leaves_a_state_to_drop() {
        // Arrange: a held game whose row seats nobody, though its log seats Ann and Bo; the
        // request finishes it (three rounds), so its result must name their player ids.
        let mut game = held(1);
        let (ann, bo) = (
            json!([
                "fine-wine",
                "be-careful",
                "memories",
                "autographed",
                "autographed",
                "legacy-edition",
                "lost-pieces"
            ]),
            json!([
                "be-careful",
                "be-careful",
                "heavy-rotation",
                "animal-kingdom",
                "animal-kingdom",
                "animal-kingdom",
                "snack-fingers"
            ]),
        );
        let rounds = (1..=3)
            .map(|n| NewEvent {
                id: format!("round {n}"),
                event_type: "round_collected".into(),
                data: json!({"round": n, "collections": {"Ann": ann, "Bo": bo}}),
                recorded_by: None,
            })
            .collect();
        let request = AppendRequest {
            expected_version: None,
            events: rounds,
            read_models: true,
        };

        // Act
        let refused = decide(&mut game, &request).unwrap_err();

        // Assert: refused as broken, with the state already past the rounds: not to be kept.
        assert!(
            matches!(&refused, Refused::Broken(why) if why.contains("not seated")),
            "{refused}"
        );
        assert!(!refused.left_the_state());
        assert_eq!(game.state.version(), 4);
        assert!(
            Refused::StaleVersion {
                expected: 1,
                current: 2
            }
            .left_the_state()
        );
    }

    #[test]
    fn a_game_log_cannot_grow_past_its_limit() {
        let mut game = held(MAX_EVENTS_PER_GAME as i64);
        let request = request(&game, &[], &["new"], None);

        let refused = decide(&mut game, &request).unwrap_err();

        assert!(
            matches!(refused, Refused::GameTooLong { stored } if stored == MAX_EVENTS_PER_GAME)
        );
    }

    #[test]
    fn a_retry_of_stored_events_is_answered_before_the_version_check() {
        let mut game = held(3);
        let request = request(&game, &[2, 3], &[], Some(1));

        let decision = decide(&mut game, &request).unwrap();

        let Decision::AlreadyStored { events } = decision else {
            panic!("not answered as stored: {decision:?}");
        };
        assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(game.state.version(), 3);
    }

    #[test]
    fn a_game_held_without_its_log_asks_for_it_for_a_retry_or_a_common_event_only() {
        let mut game = held(3);
        let retry = request(&game, &[3], &[], None);
        let abandon = request(&game, &[], &["new"], None);
        let round = AppendRequest {
            expected_version: None,
            events: vec![NewEvent {
                id: "round 1".into(),
                event_type: "round_collected".into(),
                data: json!({"round": 1, "collections": {}}),
                recorded_by: None,
            }],
            read_models: true,
        };
        assert!(!game.needs_log(&retry));

        game.let_go_of_log();

        assert!(game.needs_log(&retry));
        assert!(game.needs_log(&abandon));
        assert!(!game.needs_log(&round));
        // Decided without it anyway, it is a fault of ours, not the table's.
        assert!(matches!(
            decide(&mut game, &abandon),
            Err(Refused::Broken(_))
        ));
    }

    #[test]
    fn a_stored_id_sent_with_other_content_is_a_conflict() {
        let mut game = held(3);
        let request = request(&game, &[], &["e3"], None);

        let refused = decide(&mut game, &request).unwrap_err();

        assert!(matches!(
            refused,
            Refused::IdReused {
                index: 0,
                seq: 3,
                ..
            }
        ));
    }

    #[test]
    fn a_batch_mixing_stored_and_new_events_is_a_conflict() {
        let mut game = held(3);
        let request = request(&game, &[3], &["new"], None);

        let refused = decide(&mut game, &request).unwrap_err();

        assert!(matches!(refused, Refused::PartlyStored { .. }));
    }

    #[test]
    fn the_same_id_twice_in_one_request_is_refused() {
        let mut game = held(1);
        let request = request(&game, &[], &["x", "x"], None);

        let refused = decide(&mut game, &request).unwrap_err();

        assert!(matches!(refused, Refused::DuplicateId { index: 1, .. }));
    }

    #[test]
    fn an_accepted_append_advances_the_held_state_and_a_refused_one_does_not() {
        let mut game = held(1);
        let stale = request(&game, &[], &["a"], Some(5));
        assert!(matches!(
            decide(&mut game, &stale),
            Err(Refused::StaleVersion {
                expected: 5,
                current: 1
            })
        ));
        assert_eq!(game.state.version(), 1);
        assert!(game.state.log().is_none(), "held without its log");

        // An abandon needs the log: the store reads it again and replays it.
        let mut game = held(1);
        let fresh = request(&game, &[], &["a"], Some(1));
        let decision = decide(&mut game, &fresh).unwrap();

        assert!(matches!(
            decision,
            Decision::Append {
                status: Status::Abandoned,
                ..
            }
        ));
        assert_eq!(game.state.version(), 2);
    }
}
