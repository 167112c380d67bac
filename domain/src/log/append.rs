//! Appending: new events checked one by one, continuing from the log held replayed.

use super::common_events::{RETRACT_FIELDS, RetractData, check_target};
use super::rejection::Rejection;
use super::replay::{Replay, replay, replay_stored};
use super::{COMMON_EVENT_TYPES, Evaluation, GAME_STARTED, LogError, LogEvent, NewEvent, RETRACT};
use crate::error::parse_json;
use crate::ruleset::Ruleset;

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
            && check_target(last + 1, last, "retract", || {
                crate::said!("server.common.refusal.game_started_cannot_be_retracted")
            })
            .is_ok()
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
