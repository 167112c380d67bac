//! The game log: the common events every game shares, and the replay that folds a log into a
//! game's state.
//!
//! - `game_started` (event 1) carries the seated players and the effective options.
//! - `retract {seq}` — event `seq` no longer counts (a retracted `retract` counts again).
//! - `correct {seq, data}` — event `seq` counts with this data; the latest correction wins.
//! - `abandon {}` — the game stops counting; only a `retract` of it resumes play.
//! - `result_recorded {totals, winners, source}` — a game known only by its final scores
//!   (history from another app), right after `game_started`: the game is finished with those
//!   totals, typed in and not checked against the rules. No game event may follow it, and it
//!   may not follow one.
//!
//! Which events are in force is decided from the newest event backwards (a retract can only
//! name an earlier event), then the game events in force are folded through the ruleset in
//! order. After any retract or correction the whole log is checked again, but for a retract of
//! the last event (an undo), whose answer is the replay before that event, kept since.
//!
//! Stored events are never rewritten: each keeps the [`SCHEMA_VERSION`] it was written with,
//! and the replay upcasts older data on the way in (see [`upcast`] and `docs/schema-versions.md`).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Meaning, RuleError, parse_json};
use crate::insights::CommonKey;
use crate::message::Message;
use crate::pointer::pointer;
use crate::ruleset::Ruleset;
use crate::score::{self, Adjustment, Fact, PlayerScore, Scoreboard, list_names};
use crate::setup::{Player, PlayerEntry, parse_options, same_name, seat_players};
use crate::words;

pub const GAME_STARTED: &str = "game_started";
pub const RETRACT: &str = "retract";
pub const CORRECT: &str = "correct";
pub const ABANDON: &str = "abandon";
pub const COMMON_EVENT_TYPES: [&str; 3] = [RETRACT, CORRECT, ABANDON];
/// A game's final scores typed in; replayed in the game events' place (it can be corrected).
pub const RESULT_RECORDED: &str = "result_recorded";

/// The schema version events are written with today. History:
/// 1. the first one;
/// 2. Mint Condition's option `protected_be_careful` (games of version 1 played `"ignored"`).
/// 3. Mint Julep's option `last_race_ends_game` (games of versions 1–2 played `false`).
/// 4. Mind Up! with 4–5 objectives lists round 1's again in rounds 2–3 (games of versions 1–3
///    could leave them out).
/// 5. Mint Julep's `replaces` replaces the bet it names in any game (games of versions 1–4 read
///    it only with 2 players holding two bets).
/// 6. Vintage reads a prize's attribute name ignoring case (games of versions 1–5 read it letter
///    for letter).
pub const SCHEMA_VERSION: u32 = 6;

/// An event as stored: its number in the game's log, its type, its data and the schema version
/// that data was written with.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEvent {
    pub seq: u64,
    pub event_type: String,
    pub data: Value,
    pub schema_version: u32,
}

impl LogEvent {
    /// An event written today, at the current [`SCHEMA_VERSION`].
    pub fn new(seq: u64, event_type: impl Into<String>, data: Value) -> Self {
        Self {
            seq,
            event_type: event_type.into(),
            data,
            schema_version: SCHEMA_VERSION,
        }
    }
}

/// An event as submitted, before it has a number.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    pub event_type: String,
    pub data: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    InProgress,
    Finished,
    Abandoned,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Finished => "finished",
            Status::Abandoned => "abandoned",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "in_progress" => Some(Status::InProgress),
            "finished" => Some(Status::Finished),
            "abandoned" => Some(Status::Abandoned),
            _ => None,
        }
    }
}

/// What a replayed log amounts to.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub status: Status,
    /// The seq of the last event replayed.
    pub version: u64,
    pub scoreboard: Scoreboard,
    /// What the club statistics take from this game (see [`Ruleset::facts`]).
    pub facts: Vec<Fact>,
    /// Whether the club's statistics count it: false for a typed-in result marked
    /// `in_statistics: false` (a BoardGameGeek play kept out of its win statistics).
    pub in_statistics: bool,
}

/// Why a submitted batch was refused: which event of the batch, which field of it (a JSON
/// pointer relative to that event object, e.g. `/data/round`) and which rule: `rule` in English,
/// `said` in any language the catalogues speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {event_index}: {rule} (at {pointer})")]
pub struct Rejection {
    pub event_index: usize,
    pub pointer: String,
    pub rule: String,
    pub said: Message,
}

impl Rejection {
    fn new(event_index: usize, pointer: impl Into<String>, said: Message) -> Self {
        Self {
            event_index,
            pointer: pointer.into(),
            rule: said.english(),
            said,
        }
    }
}

/// A stored log that does not replay. Stored logs were checked when appended, so this means
/// the store or the rules changed underneath them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("the log is empty or does not begin with game_started")]
    NoStart,
    #[error("stored event {seq} does not replay: {error}")]
    Broken { seq: u64, error: RuleError },
}

/// The seated players and effective options of a new game, as stored in `game_started`.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    pub players: Vec<Player>,
    pub options: Value,
}

/// Checks a new game's players and options. Pointers are relative to the creation request.
pub fn start<R: Ruleset>(entries: &[PlayerEntry], options: &Value) -> Result<Setup, RuleError> {
    let players = seat_players(entries, R::PLAYERS, R::TITLE)?;
    let given = options;
    let options: R::Options = parse_options(given)?;
    for (key, why) in R::REQUIRED_OPTIONS {
        if given.get(key).is_none() {
            return Err(RuleError::said("/options", why()));
        }
    }
    R::check_setup(&players, &options)?;
    let options = serde_json::to_value(&options).map_err(|e| {
        RuleError::said(
            "/options",
            crate::said!("server.common.refusal.options_cannot_stored", error = e),
        )
    })?;
    Ok(Setup { players, options })
}

/// Replays a stored log (a whole log or a prefix of it) into its evaluation, without facts.
pub fn evaluate<R: Ruleset>(log: &[LogEvent]) -> Result<Evaluation, LogError> {
    Ok(replay_stored::<R>(log)?.evaluation(false))
}

/// Like [`evaluate`], with the facts of a finished game for the statistics.
pub fn evaluate_with_facts<R: Ruleset>(log: &[LogEvent]) -> Result<Evaluation, LogError> {
    Ok(replay_stored::<R>(log)?.evaluation(true))
}

fn replay_stored<R: Ruleset>(log: &[LogEvent]) -> Result<Replay<R>, LogError> {
    replay::<R>(log).map_err(|fault| match fault {
        Fault::NoStart => LogError::NoStart,
        Fault::At { seq, error, .. } => LogError::Broken { seq, error },
    })
}

/// Checks a batch of new events against a stored log, in order, as if appended one by one.
/// Returns the evaluation of the whole resulting log, or the first rejection.
pub fn check_append<R: Ruleset>(
    log: &[LogEvent],
    batch: &[NewEvent],
) -> Result<Evaluation, Rejection> {
    let mut replayed = Replayed::<R>::from_log(log.to_vec()).map_err(|e| {
        Rejection::new(
            0,
            "",
            // The stored log is the server's own: this is a fault of ours, said as it is.
            crate::said!(
                "server.log.refusal.stored_log_does_not_replay",
                error = e.to_string()
            ),
        )
    })?;
    replayed.append(batch)
}

/// A game's log replayed to its last event, held so that new events continue from it instead
/// of replaying the whole log again (the server keeps these in its state cache).
pub struct Replayed<R: Ruleset> {
    replay: Replay<R>,
    log: Vec<LogEvent>,
    /// The replay of every event held but the last, when known (the copy an append makes in
    /// case it is refused). Retracting the last event, the table's "undo", then costs a swap
    /// instead of a whole replay: the events in force are exactly those before it.
    before_last: Option<Replay<R>>,
}

impl<R: Ruleset> Clone for Replayed<R> {
    fn clone(&self) -> Self {
        Self {
            replay: self.replay.clone(),
            log: self.log.clone(),
            before_last: self.before_last.clone(),
        }
    }
}

impl<R: Ruleset> Replayed<R> {
    /// Replays a whole stored log.
    pub fn from_log(log: Vec<LogEvent>) -> Result<Self, LogError> {
        let replay = replay_stored::<R>(&log)?;
        Ok(Self {
            replay,
            log,
            before_last: None,
        })
    }

    /// The seq of the last event held (the game's version).
    pub fn version(&self) -> u64 {
        self.replay.version
    }

    /// Every event held, seq 1 first.
    pub fn log(&self) -> &[LogEvent] {
        &self.log
    }

    /// What the log amounts to; `with_facts` adds a finished game's facts for the statistics.
    pub fn evaluation(&self, with_facts: bool) -> Evaluation {
        self.replay.evaluation(with_facts)
    }

    /// Checks a batch of new events in order, as if appended one by one, and holds them when
    /// all pass: the evaluation of the resulting log (with facts: the append decides the
    /// statistics read models). On a rejection nothing changes.
    pub fn append(&mut self, batch: &[NewEvent]) -> Result<Evaluation, Rejection> {
        if let [new] = batch
            && self.undoes_last(new)
        {
            return Ok(self.undo_last(new));
        }
        let held = self.log.len();
        let before = self.replay.clone();
        let outcome = self.append_each(batch);
        match outcome {
            Err(_) => {
                self.log.truncate(held);
                self.replay = before;
            }
            Ok(()) if !batch.is_empty() => {
                self.before_last = (batch.len() == 1).then_some(before);
            }
            Ok(()) => {}
        }
        outcome.map(|()| self.replay.evaluation(true))
    }

    /// Whether `new` is a valid retract of the last event held, with the replay before that
    /// event known. Anything else (a malformed retract included) takes the whole replay, which
    /// says what is wrong.
    fn undoes_last(&self, new: &NewEvent) -> bool {
        let last = self.log.len() as u64;
        new.event_type == RETRACT
            && self.before_last.is_some()
            && parse_json::<RetractData>(&new.data, "/data", RETRACT, RETRACT_FIELDS)
                .is_ok_and(|retract| retract.seq == last)
            && check_target(last + 1, last, "retract", "").is_ok()
    }

    /// Appends a retract of the last event: only a later event can retract one, so with both
    /// left out the events in force, their corrections and any abandon are those before the
    /// last event, and so is the replay. The replay it replaces is the one before the retract.
    fn undo_last(&mut self, new: &NewEvent) -> Evaluation {
        let seq = self.log.len() as u64 + 1;
        let mut restored = self.before_last.take().expect("checked by undoes_last");
        restored.version = seq;
        self.before_last = Some(std::mem::replace(&mut self.replay, restored));
        self.log
            .push(LogEvent::new(seq, new.event_type.clone(), new.data.clone()));
        self.replay.evaluation(true)
    }

    fn append_each(&mut self, batch: &[NewEvent]) -> Result<(), Rejection> {
        let Self {
            replay: current,
            log,
            ..
        } = self;
        for (index, new) in batch.iter().enumerate() {
            let seq = log.len() as u64 + 1;
            if new.event_type == GAME_STARTED {
                return Err(Rejection::new(
                    index,
                    "/type",
                    crate::said!("server.log.refusal.game_started_appended"),
                ));
            }
            log.push(LogEvent::new(seq, new.event_type.clone(), new.data.clone()));
            let last = &log[log.len() - 1];
            let step = if COMMON_EVENT_TYPES.contains(&new.event_type.as_str()) {
                // A retract or correction can change what came before: check the whole log.
                replay::<R>(log).map(|replay| *current = replay)
            } else {
                // A plain game event cannot change what came before: apply it to the state so far.
                current.apply_game_event(last, None)
            };
            step.map_err(|fault| fault.into_rejection(index, last, log))?;
            current.version = seq;
        }
        Ok(())
    }
}

/// A rule broken somewhere in a log.
#[derive(Debug)]
enum Fault {
    NoStart,
    /// Event `seq` breaks a rule; `corrected_by` is the correction whose data it was replayed
    /// with. The error's pointer is relative to the event object (`/data/…`, `/type`).
    At {
        seq: u64,
        corrected_by: Option<u64>,
        error: RuleError,
    },
}

impl Fault {
    fn at(seq: u64, error: RuleError) -> Self {
        Fault::At {
            seq,
            corrected_by: None,
            error,
        }
    }

    /// Attributes a fault found after appending `new` to the batch event that caused it.
    fn into_rejection(self, event_index: usize, new: &LogEvent, log: &[LogEvent]) -> Rejection {
        match self {
            Fault::NoStart => {
                Rejection::new(event_index, "", crate::said!("server.log.refusal.no_start"))
            }
            Fault::At { seq, error, .. } if seq == new.seq => Rejection {
                event_index,
                pointer: error.pointer,
                rule: error.rule,
                said: error.said,
            },
            // The new correction's own data breaks the corrected event's rules: say so as a
            // correction, since the player is editing event `seq`, not recording a new one.
            Fault::At {
                seq,
                corrected_by: Some(by),
                error,
            } if by == new.seq => Rejection::new(
                event_index,
                error.pointer.replacen("/data", "/data/data", 1),
                correction_breaks(seq, &new.data["data"], log, error.said),
            ),
            // An older event no longer obeys the rules once this retract/correction counts.
            Fault::At { seq, error, .. } => {
                let kind = log
                    .get(seq as usize - 1)
                    .map_or("?", |e| e.event_type.as_str());
                let said = if new.event_type == CORRECT {
                    crate::said!(
                        "server.log.refusal.after_correction",
                        seq = seq,
                        kind = kind,
                        rule = error.said
                    )
                } else {
                    crate::said!(
                        "server.log.refusal.after_change",
                        seq = seq,
                        kind = kind,
                        rule = error.said
                    )
                };
                Rejection::new(event_index, "/data/seq", said)
            }
        }
    }
}

/// The words for a correction whose data breaks a rule: which event it replaces, with what,
/// and — when the new data names another round that has its own event — which one was probably
/// meant (correcting seq 2 with round 2's record is usually a correction aimed one event early).
fn correction_breaks(seq: u64, new_data: &Value, log: &[LogEvent], rule: Message) -> Message {
    let round = |data: &Value| data.get("round").and_then(Value::as_u64);
    let Some(target) = log.get(seq as usize - 1) else {
        return crate::said!(
            "server.log.refusal.correction_breaks",
            seq = seq,
            rule = rule
        );
    };
    let kind = target.event_type.as_str();
    let (old_round, new_round) = (round(&target.data), round(new_data));
    let replaced = match old_round {
        Some(round) => crate::said!(
            "server.log.words.event_of_round",
            seq = seq,
            kind = kind,
            round = round
        ),
        None => crate::said!("server.log.words.event_of_kind", seq = seq, kind = kind),
    };
    match new_round.filter(|r| old_round.is_some_and(|old| old != *r)) {
        Some(new_round) => {
            let meant = log.iter().find(|e| {
                e.seq != seq && e.event_type == kind && round(&e.data) == Some(new_round)
            });
            match meant {
                Some(meant) => crate::said!(
                    "server.log.refusal.correction_other_round_meant",
                    replaced = replaced,
                    round = new_round,
                    rule = rule,
                    meant = meant.seq,
                    kind = kind
                ),
                None => crate::said!(
                    "server.log.refusal.correction_other_round",
                    replaced = replaced,
                    round = new_round,
                    rule = rule
                ),
            }
        }
        None => crate::said!(
            "server.log.refusal.correction_replaces",
            replaced = replaced,
            rule = rule
        ),
    }
}

const RETRACT_FIELDS: &[Meaning] = &[("seq", || crate::said!("server.log.meaning.retract_seq"))];
const CORRECT_FIELDS: &[Meaning] = &[
    ("seq", || crate::said!("server.log.meaning.correct_seq")),
    ("data", || crate::said!("server.log.meaning.correct_data")),
];
const RESULT_FIELDS: &[Meaning] = &[
    ("totals", || {
        crate::said!("server.log.meaning.result_totals")
    }),
    ("winners", || {
        crate::said!("server.log.meaning.result_winners")
    }),
    ("in_statistics", || {
        crate::said!("server.log.meaning.result_in_statistics")
    }),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RetractData {
    seq: u64,
    #[serde(default)]
    #[allow(dead_code)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectData {
    seq: u64,
    #[allow(dead_code)]
    data: Value,
    #[serde(default)]
    #[allow(dead_code)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AbandonData {
    #[serde(default)]
    #[allow(dead_code)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultRecordedData {
    totals: serde_json::Map<String, Value>,
    winners: Vec<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default = "counted")]
    in_statistics: bool,
}

fn counted() -> bool {
    true
}

/// A `result_recorded` in force: the typed-in totals in seat order.
#[derive(Debug, Clone)]
struct RecordedResult {
    seq: u64,
    totals: Vec<(Player, i64)>,
    winners: Vec<String>,
    source: Option<String>,
    in_statistics: bool,
}

impl RecordedResult {
    /// Checks the typed-in result against the seated players. Pointers are relative to `data`.
    fn parse(seq: u64, data: &Value, players: &[Player]) -> Result<Self, RuleError> {
        let data: ResultRecordedData = parse_json(data, "", RESULT_RECORDED, RESULT_FIELDS)?;
        let names = || list_names(&players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>());
        // Names follow the one rule (`same_name`): "Jay " and "jay" are the seated "Jay".
        let seated = |name: &str| players.iter().find(|p| same_name(&p.name, name));
        let mut given: Vec<(&Player, &str, &Value)> = Vec::with_capacity(data.totals.len());
        for (name, value) in &data.totals {
            let Some(player) = seated(name) else {
                return Err(RuleError::said(
                    pointer(["totals", name.as_str()]),
                    crate::said!(
                        "server.common.refusal.not_player_this_game_players",
                        stranger = name,
                        names = names()
                    ),
                ));
            };
            if given.iter().any(|(p, _, _)| p.seat == player.seat) {
                return Err(RuleError::said(
                    pointer(["totals", name.as_str()]),
                    crate::said!(
                        "server.common.refusal.total_given_twice",
                        name = &player.name
                    ),
                ));
            }
            given.push((player, name.as_str(), value));
        }
        let mut totals = Vec::with_capacity(players.len());
        for player in players {
            let Some((_, key, value)) = given.iter().find(|(p, _, _)| p.seat == player.seat) else {
                return Err(RuleError::said(
                    "/totals",
                    crate::said!(
                        "server.common.refusal.total_missing_every_player_needs",
                        name = &player.name
                    ),
                ));
            };
            let at = pointer(["totals", *key]);
            let total = value.as_i64().ok_or_else(|| {
                RuleError::said(
                    at.clone(),
                    crate::said!(
                        "server.common.refusal.total_must_whole_number",
                        name = &player.name
                    ),
                )
            })?;
            crate::score::within_limit(total, at, &format!("{}'s total", player.name))?;
            totals.push((player.clone(), total));
        }
        if data.winners.is_empty() {
            return Err(RuleError::said(
                "/winners",
                crate::said!("server.common.refusal.name_least_one_winner_several"),
            ));
        }
        // The winners by their seated names, so the scoreboard finds them.
        let mut winners: Vec<String> = Vec::with_capacity(data.winners.len());
        for (i, winner) in data.winners.iter().enumerate() {
            let at = pointer(["winners", &i.to_string()]);
            let Some(player) = seated(winner) else {
                return Err(RuleError::said(
                    at,
                    crate::said!(
                        "server.common.refusal.not_player_this_game_players_2",
                        winner = winner,
                        names = names()
                    ),
                ));
            };
            if winners.contains(&player.name) {
                return Err(RuleError::said(
                    at,
                    crate::said!("server.common.refusal.named_twice", winner = &player.name),
                ));
            }
            winners.push(player.name.clone());
        }
        Ok(Self {
            seq,
            totals,
            winners,
            source: data.source,
            in_statistics: data.in_statistics,
        })
    }

    /// The scoreboard of the typed-in totals, in the direction the game's rules give: the
    /// winners first, as typed in; the others by their totals.
    fn scoreboard(&self, empty: Scoreboard) -> Scoreboard {
        let source = self.source.as_deref();
        let is_winner = |p: &PlayerScore| self.winners.contains(&p.name);
        let mut players: Vec<PlayerScore> = self
            .totals
            .iter()
            .map(|(player, total)| {
                let typed_in = Adjustment {
                    label: crate::said!("server.log.line.total_typed_in"),
                    points: *total,
                    detail: match source {
                        None => crate::said!("server.log.detail.total_typed_in", seq = self.seq),
                        Some(from) => crate::said!(
                            "server.log.detail.total_typed_in_from",
                            seq = self.seq,
                            source = from
                        ),
                    },
                };
                PlayerScore::new(&player.name, player.seat, Vec::new(), vec![typed_in])
            })
            .collect();
        let lower_wins = empty.lower_wins;
        let better = |a: &PlayerScore| if lower_wins { -a.total } else { a.total };
        // Every winner ranks first, whatever their totals; the others follow by their totals.
        score::rank(&mut players, |p| {
            if is_winner(p) {
                (true, 0)
            } else {
                (false, better(p))
            }
        });
        let mut recorded = serde_json::json!({
            "event": self.seq,
            "source": self.source,
            "checked_against_rules": false,
            "note": "the totals were typed in and not checked against the rules",
        });
        // Said only of a result kept out of the statistics.
        if !self.in_statistics {
            recorded["in_statistics"] = Value::Bool(false);
        }
        let mut details = serde_json::Map::new();
        details.insert(RESULT_RECORDED.into(), recorded);
        Scoreboard {
            winners: score::winners(&players),
            players,
            tiebreak: None,
            details: Some(Value::Object(details)),
            ..empty
        }
    }
}

#[derive(Deserialize)]
struct StartedData {
    players: Vec<Player>,
    #[serde(default)]
    options: Value,
}

/// The state of a replayed log.
struct Replay<R: Ruleset> {
    state: R::State,
    abandoned_at: Option<u64>,
    version: u64,
    /// The seated players, for a typed-in result.
    players: Vec<Player>,
    /// The last game event applied, if any.
    last_game_event: Option<u64>,
    recorded: Option<RecordedResult>,
}

impl<R: Ruleset> Clone for Replay<R> {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            abandoned_at: self.abandoned_at,
            version: self.version,
            players: self.players.clone(),
            last_game_event: self.last_game_event,
            recorded: self.recorded.clone(),
        }
    }
}

impl<R: Ruleset> Replay<R> {
    fn apply_game_event(
        &mut self,
        event: &LogEvent,
        corrected: Option<(u64, &Value)>,
    ) -> Result<(), Fault> {
        let fault = |error: RuleError| Fault::At {
            seq: event.seq,
            corrected_by: corrected.map(|c| c.0),
            error,
        };
        let typed_in = event.event_type == RESULT_RECORDED;
        if !typed_in && !R::EVENT_TYPES.contains(&event.event_type.as_str()) {
            let mut known: Vec<&str> = R::EVENT_TYPES.to_vec();
            known.extend(COMMON_EVENT_TYPES);
            known.push(RESULT_RECORDED);
            return Err(Fault::at(
                event.seq,
                RuleError::said(
                    "/type",
                    crate::said!(
                        "server.common.refusal.has_no_event_events_are",
                        title = R::TITLE,
                        event_type = format!("{:?}", event.event_type),
                        join = known.join(", ")
                    ),
                ),
            ));
        }
        if let Some(at) = self.abandoned_at {
            return Err(fault(RuleError::said(
                "",
                crate::said!(
                    "server.common.refusal.game_was_abandoned_event_retract",
                    at = at
                ),
            )));
        }
        if let Some(recorded) = &self.recorded {
            return Err(fault(RuleError::said(
                "",
                crate::said!(
                    "server.common.refusal.this_game_final_scores_were",
                    seq = &recorded.seq
                ),
            )));
        }
        let data = corrected.map_or(&event.data, |c| c.1);
        if typed_in {
            if let Some(last) = self.last_game_event {
                return Err(fault(RuleError::said(
                    "/type",
                    crate::said!(
                        "server.common.refusal.result_recorded_game_known_only",
                        last = last
                    ),
                )));
            }
            let recorded = RecordedResult::parse(event.seq, data, &self.players)
                .map_err(|e| fault(e.within("/data")))?;
            self.recorded = Some(recorded);
            return Ok(());
        }
        if R::is_finished(&self.state) && !R::accepts_when_finished(&self.state, &event.event_type)
        {
            return Err(fault(RuleError::said(
                "",
                crate::said!("server.common.refusal.game_already_finished_change_correct"),
            )));
        }
        R::apply(&mut self.state, &event.event_type, data).map_err(|e| fault(e.within("/data")))?;
        self.last_game_event = Some(event.seq);
        Ok(())
    }

    fn evaluation(&self, with_facts: bool) -> Evaluation {
        let status = if self.abandoned_at.is_some() {
            Status::Abandoned
        } else if self.recorded.is_some() || R::is_finished(&self.state) {
            Status::Finished
        } else {
            Status::InProgress
        };
        let scoreboard = match &self.recorded {
            Some(recorded) => recorded.scoreboard(R::score(&self.state)),
            None => R::score(&self.state),
        };
        // Statistics count finished games only; a typed-in result has no rule-aware facts,
        // only the mark that lets the insights leave its seats out.
        let facts = match (&self.recorded, with_facts && status == Status::Finished) {
            (_, false) => Vec::new(),
            (Some(recorded), true) => vec![Fact::game(
                &CommonKey::ResultRecorded,
                recorded.totals.len() as i64,
            )],
            (None, true) => R::facts(&self.state),
        };
        Evaluation {
            status,
            version: self.version,
            scoreboard: by_status(
                scoreboard,
                status,
                (self.last_game_event.is_some() && R::anything_scored(&self.state))
                    || self.recorded.is_some(),
            ),
            facts,
            in_statistics: self.recorded.as_ref().is_none_or(|r| r.in_statistics),
        }
    }
}

/// Only a finished game has winners (API.md, Scores): while it is in progress the players
/// ranked first are its `leaders` (nobody before the first scored round or move), and an abandoned game
/// names neither. The ranks and totals stay as played.
fn by_status(mut board: Scoreboard, status: Status, scored: bool) -> Scoreboard {
    match status {
        Status::Finished => board.leaders.clear(),
        Status::InProgress if scored => {
            board.leaders = std::mem::take(&mut board.winners);
        }
        Status::InProgress | Status::Abandoned => {
            board.winners.clear();
            board.leaders.clear();
            board.tiebreak = None;
        }
    }
    board
}

/// Game events and `result_recorded`, which stands in for them: replayed in order, correctable.
fn is_game_event(event_type: &str) -> bool {
    event_type != GAME_STARTED && !COMMON_EVENT_TYPES.contains(&event_type)
}

/// Replays a whole log: decides which events are in force, then folds the game events.
fn replay<R: Ruleset>(log: &[LogEvent]) -> Result<Replay<R>, Fault> {
    let start = log
        .first()
        .filter(|e| e.event_type == GAME_STARTED && e.seq == 1)
        .ok_or(Fault::NoStart)?;
    let mut started: StartedData =
        parse_json(&start.data, "/data", GAME_STARTED, &[]).map_err(|e| Fault::at(1, e))?;
    upcast_options::<R>(start.schema_version, &mut started.options);
    // Stored options are the effective ones, checked at creation: read them directly.
    let options = R::Options::deserialize(&started.options).map_err(|e| {
        Fault::at(
            1,
            RuleError::said(
                "/data/options",
                words::refusal_said(
                    crate::said!("server.words.subject.stored_options"),
                    &e.to_string(),
                    true,
                ),
            ),
        )
    })?;
    let version = log.last().map_or(0, |e| e.seq);

    // Which events are in force: newest first, because only a later event can retract one.
    let mut retracted_by: HashMap<u64, u64> = HashMap::new();
    for event in log.iter().rev() {
        if event.event_type != RETRACT || retracted_by.contains_key(&event.seq) {
            continue;
        }
        let retract: RetractData = parse_json(&event.data, "/data", RETRACT, RETRACT_FIELDS)
            .map_err(|e| Fault::at(event.seq, e))?;
        check_target(
            event.seq,
            retract.seq,
            "retract",
            "abandon the game instead",
        )
        .map_err(|e| Fault::at(event.seq, e))?;
        retracted_by.entry(retract.seq).or_insert(event.seq);
    }
    let in_force = |seq: u64| !retracted_by.contains_key(&seq);

    let mut replay = Replay::<R> {
        players: started.players.clone(),
        state: R::new_game(started.players, options),
        abandoned_at: None,
        version,
        last_game_event: None,
        recorded: None,
    };
    let mut corrections: HashMap<u64, (u64, &Value)> = HashMap::new();
    let mut first_retract_of: HashMap<u64, u64> = HashMap::new();
    // First the common events in order, so every game event is replayed with its final data.
    for event in &log[1..] {
        if !in_force(event.seq) {
            continue;
        }
        let fault = |error: RuleError| Fault::at(event.seq, error);
        match event.event_type.as_str() {
            RETRACT => {
                let retract: RetractData =
                    parse_json(&event.data, "/data", RETRACT, RETRACT_FIELDS).map_err(fault)?;
                if let Some(earlier) = first_retract_of.insert(retract.seq, event.seq) {
                    return Err(fault(RuleError::said(
                        "/data/seq",
                        crate::said!(
                            "server.common.refusal.event_already_retracted_event",
                            seq = &retract.seq,
                            earlier = earlier
                        ),
                    )));
                }
            }
            CORRECT => {
                let correct: CorrectData =
                    parse_json(&event.data, "/data", CORRECT, CORRECT_FIELDS).map_err(fault)?;
                check_target(
                    event.seq,
                    correct.seq,
                    "correct",
                    "start a new game instead",
                )
                .map_err(fault)?;
                let target = &log[correct.seq as usize - 1];
                if !is_game_event(&target.event_type) {
                    return Err(fault(RuleError::said(
                        "/data/seq",
                        crate::said!(
                            "server.common.refusal.event_not_game_event_only",
                            seq = &correct.seq,
                            event_type = &target.event_type
                        ),
                    )));
                }
                // A correction of an event retracted later is moot; one made after the
                // retract has nothing to correct.
                if let Some(&by) = retracted_by.get(&correct.seq) {
                    if by > event.seq {
                        continue;
                    }
                    return Err(fault(RuleError::said(
                        "/data/seq",
                        crate::said!(
                            "server.common.refusal.event_was_retracted_event_there",
                            seq = &correct.seq,
                            by = by
                        ),
                    )));
                }
                // Keep a reference into the log rather than the parsed copy.
                corrections.insert(correct.seq, (event.seq, &event.data["data"]));
            }
            ABANDON => {
                let _: AbandonData =
                    parse_json(&event.data, "/data", ABANDON, &[]).map_err(fault)?;
                if let Some(at) = replay.abandoned_at {
                    return Err(fault(RuleError::said(
                        "",
                        crate::said!(
                            "server.common.refusal.game_was_already_abandoned_event",
                            at = at
                        ),
                    )));
                }
                replay.abandoned_at = Some(event.seq);
            }
            _ => {}
        }
    }
    // Then the game events in force, in order; those after an abandon are refused.
    let abandoned_at = replay.abandoned_at.take();
    for event in &log[1..] {
        if !in_force(event.seq) || !is_game_event(&event.event_type) {
            continue;
        }
        replay.abandoned_at = abandoned_at.filter(|at| event.seq > *at);
        replay.apply_game_event(event, corrections.get(&event.seq).copied())?;
    }
    replay.abandoned_at = abandoned_at;
    Ok(replay)
}

/// Brings a stored event's data up to today's [`SCHEMA_VERSION`], without touching the store:
/// `game_started`'s options get the values a game of that version was played with for the
/// options added since (see [`Ruleset::upcast_options`]). Other data has not changed shape.
pub fn upcast<R: Ruleset>(event_type: &str, schema_version: u32, data: &mut Value) {
    if event_type == GAME_STARTED
        && let Some(options) = data.get_mut("options")
    {
        upcast_options::<R>(schema_version, options);
    }
}

fn upcast_options<R: Ruleset>(schema_version: u32, options: &mut Value) {
    if schema_version < SCHEMA_VERSION
        && let Value::Object(options) = options
    {
        R::upcast_options(schema_version, options);
    }
}

/// A retract or correct may only name an earlier event other than `game_started`.
fn check_target(own_seq: u64, target: u64, verb: &str, instead: &str) -> Result<(), RuleError> {
    if target == 0 || target >= own_seq {
        return Err(RuleError::said(
            "/data/seq",
            crate::said!(
                "server.common.refusal.there_no_earlier_event_events",
                target = target,
                verb = verb,
                last = own_seq - 1
            ),
        ));
    }
    if target == 1 {
        return Err(RuleError::said(
            "/data/seq",
            crate::said!(
                "server.common.refusal.game_started_event_1_cannot",
                verb = verb,
                instead = instead
            ),
        ));
    }
    Ok(())
}

/// How later events changed an event: retracted by (seq), corrected by (seq; the latest
/// correction in force). Only retracts and corrections that themselves count are considered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub retracted_by: Option<u64>,
    pub corrected_by: Option<u64>,
}

/// The marks of every event of a stored log that was changed by a later one.
pub fn marks(log: &[LogEvent]) -> HashMap<u64, Marks> {
    let target = |e: &LogEvent| e.data.get("seq").and_then(Value::as_u64);
    let mut marks: HashMap<u64, Marks> = HashMap::new();
    for event in log.iter().rev() {
        let retracted = marks
            .get(&event.seq)
            .is_some_and(|m| m.retracted_by.is_some());
        if event.event_type == RETRACT
            && !retracted
            && let Some(seq) = target(event)
        {
            marks
                .entry(seq)
                .or_default()
                .retracted_by
                .get_or_insert(event.seq);
        }
    }
    for event in log {
        let retracted = marks
            .get(&event.seq)
            .is_some_and(|m| m.retracted_by.is_some());
        if event.event_type == CORRECT
            && !retracted
            && let Some(seq) = target(event)
        {
            marks.entry(seq).or_default().corrected_by = Some(event.seq);
        }
    }
    marks
}
