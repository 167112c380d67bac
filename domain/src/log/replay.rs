//! The replay: the events in force, the game events folded through the ruleset, the outcome.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::common_events::{
    AbandonData, CORRECT_FIELDS, CorrectData, RETRACT_FIELDS, RetractData, check_target,
};
use super::rejection::Fault;
use super::result_recorded::RecordedResult;
use super::schema::upcast_options;
use super::started::StartedData;
use super::{
    ABANDON, COMMON_EVENT_TYPES, CORRECT, Evaluation, GAME_STARTED, LogError, LogEvent,
    RESULT_RECORDED, RETRACT, Status,
};
use crate::error::{RuleError, parse_json};
use crate::insights::CommonKey;
use crate::ruleset::Ruleset;
use crate::score::{Fact, Scoreboard};
use crate::setup::Players;
use crate::words;

/// Replays a stored log (a whole log or a prefix of it) into its evaluation, without facts.
pub fn evaluate<R: Ruleset>(log: &[LogEvent]) -> Result<Evaluation, LogError> {
    Ok(replay_stored::<R>(log)?.evaluation(false))
}

/// Like [`evaluate`], with the facts of a finished game for the statistics.
pub fn evaluate_with_facts<R: Ruleset>(log: &[LogEvent]) -> Result<Evaluation, LogError> {
    Ok(replay_stored::<R>(log)?.evaluation(true))
}

/// Replays a stored log; a fault means the store or the rules changed underneath it.
pub(super) fn replay_stored<R: Ruleset>(log: &[LogEvent]) -> Result<Replay<R>, LogError> {
    replay::<R>(log).map_err(|fault| match fault {
        Fault::NoStart => LogError::NoStart,
        Fault::At { seq, error, .. } => LogError::Broken { seq, error },
    })
}

/// The state of a replayed log.
pub(super) struct Replay<R: Ruleset> {
    state: R::State,
    abandoned_at: Option<u64>,
    pub(super) version: u64,
    /// The seated players, for a typed-in result.
    players: Players,
    /// The last game event applied, if any.
    last_game_event: Option<u64>,
    /// Game events applied (those in force): what the state grew by.
    pub(super) game_events: u32,
    /// Boxed: few games are typed in, and every held game keeps the room.
    recorded: Option<Box<RecordedResult>>,
}

impl<R: Ruleset> Clone for Replay<R> {
    fn clone(&self) -> Self {
        Self {
            state: self.state.clone(),
            abandoned_at: self.abandoned_at,
            version: self.version,
            players: self.players.clone(),
            last_game_event: self.last_game_event,
            game_events: self.game_events,
            recorded: self.recorded.clone(),
        }
    }
}

impl<R: Ruleset> Replay<R> {
    pub(super) fn apply_game_event(
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
            self.recorded = Some(Box::new(recorded));
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
        self.game_events += 1;
        Ok(())
    }

    pub(super) fn evaluation(&self, with_facts: bool) -> Evaluation {
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
pub(super) fn replay<R: Ruleset>(log: &[LogEvent]) -> Result<Replay<R>, Fault> {
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
        check_target(event.seq, retract.seq, "retract", || {
            crate::said!("server.common.refusal.game_started_cannot_be_retracted")
        })
        .map_err(|e| Fault::at(event.seq, e))?;
        retracted_by.entry(retract.seq).or_insert(event.seq);
    }
    let in_force = |seq: u64| !retracted_by.contains_key(&seq);

    let players = Players::from(started.players);
    let mut replay = Replay::<R> {
        players: players.clone(),
        state: R::new_game(players, options),
        abandoned_at: None,
        version,
        last_game_event: None,
        game_events: 0,
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
                check_target(event.seq, correct.seq, "correct", || {
                    crate::said!("server.common.refusal.game_started_cannot_be_corrected")
                })
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
