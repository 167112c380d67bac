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
///
/// A game held between appends lets its log go ([`Replayed::let_go_of_log`]): a plain game event
/// continues the replay without it, and only a retract, a correction or an abandon — which can
/// change what came before — needs it back ([`Replayed::needs_log`]), replayed whole again.
/// The one exception is the table's undo, a retract of the last event, while the replay from
/// before that event is still kept ([`Replayed::let_go_of_undo`]): it is a swap.
pub struct Replayed<R: Ruleset> {
    replay: Replay<R>,
    /// Every event held, seq 1 first; `None` once let go.
    log: Option<Vec<LogEvent>>,
    /// The replay of every event held but the last, when known (the copy an append makes in
    /// case it is refused). Retracting the last event, the table's "undo", then costs a swap
    /// instead of a whole replay: the events in force are exactly those before it. Boxed: a
    /// held game that let it go keeps a pointer's room, not a whole replay's.
    before_last: Option<Box<Replay<R>>>,
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
    /// Replays a whole stored log, and holds it.
    pub fn from_log(log: Vec<LogEvent>) -> Result<Self, LogError> {
        let replay = replay_stored::<R>(&log)?;
        Ok(Self {
            replay,
            log: Some(log),
            before_last: None,
        })
    }

    /// The seq of the last event held (the game's version, and its number of events).
    pub fn version(&self) -> u64 {
        self.replay.version
    }

    /// The game events in force, applied to the state (a typed-in result counts as none):
    /// what the state grew by, for an estimate of its size.
    pub fn game_events(&self) -> usize {
        self.replay.game_events as usize
    }

    /// Every event, seq 1 first, while the log is held.
    pub fn log(&self) -> Option<&[LogEvent]> {
        self.log.as_deref()
    }

    /// Lets the log go: what is left is what a plain game event and a score need. The state is
    /// copied too: a copy's vectors keep no room to grow, and a held game grows by an append at
    /// a time, minutes apart.
    pub fn let_go_of_log(&mut self) {
        self.log = None;
        self.replay = self.replay.clone();
    }

    /// Lets the replay from before the last event go (a game its table left a while ago): an
    /// undo then needs the log.
    pub fn let_go_of_undo(&mut self) {
        self.before_last = None;
    }

    /// Whether the replay from before the last event is kept, for an undo.
    pub fn keeps_undo(&self) -> bool {
        self.before_last.is_some()
    }

    /// Whether appending `batch` needs the whole log, and it was let go: a retract, a
    /// correction or an abandon is checked against the whole log replayed again, but for the
    /// undo of the last event while its replay from before is kept.
    pub fn needs_log(&self, batch: &[NewEvent]) -> bool {
        self.log.is_none()
            && batch
                .iter()
                .any(|e| COMMON_EVENT_TYPES.contains(&e.event_type.as_str()))
            && !matches!(batch, [new] if self.undoes_last(new))
    }

    /// What the log amounts to; `with_facts` adds a finished game's facts for the statistics.
    pub fn evaluation(&self, with_facts: bool) -> Evaluation {
        self.replay.evaluation(with_facts)
    }

    /// Checks a batch of new events in order, as if appended one by one, and holds them when
    /// all pass: the evaluation of the resulting log (with facts: the append decides the
    /// statistics read models). On a rejection nothing changes. A batch that
    /// [`Replayed::needs_log`] is refused as a fault of ours: the caller replays the log first.
    pub fn append(&mut self, batch: &[NewEvent]) -> Result<Evaluation, Rejection> {
        if let [new] = batch
            && self.undoes_last(new)
        {
            return Ok(self.undo_last(new));
        }
        if self.needs_log(batch) {
            return Err(Rejection::new(
                0,
                "",
                crate::said!(
                    "server.log.refusal.stored_log_does_not_replay",
                    error = "the log was let go"
                ),
            ));
        }
        let held = self.log.as_ref().map(Vec::len);
        let before = self.replay.clone();
        let outcome = self.append_each(batch);
        match outcome {
            Err(_) => {
                if let (Some(log), Some(held)) = (self.log.as_mut(), held) {
                    log.truncate(held);
                }
                self.replay = before;
            }
            Ok(()) if !batch.is_empty() => {
                self.before_last = (batch.len() == 1).then(|| Box::new(before));
            }
            Ok(()) => {}
        }
        outcome.map(|()| self.replay.evaluation(true))
    }

    /// Whether `new` is a valid retract of the last event held, with the replay before that
    /// event known. Anything else (a malformed retract included) takes the whole replay, which
    /// says what is wrong.
    fn undoes_last(&self, new: &NewEvent) -> bool {
        let last = self.replay.version;
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
        let seq = self.replay.version + 1;
        let mut restored = self.before_last.take().expect("checked by undoes_last");
        restored.version = seq;
        self.before_last = Some(Box::new(std::mem::replace(&mut self.replay, *restored)));
        if let Some(log) = self.log.as_mut() {
            log.push(LogEvent::new(seq, new.event_type.clone(), new.data.clone()));
        }
        self.replay.evaluation(true)
    }

    fn append_each(&mut self, batch: &[NewEvent]) -> Result<(), Rejection> {
        let Self {
            replay: current,
            log,
            ..
        } = self;
        for (index, new) in batch.iter().enumerate() {
            let seq = current.version + 1;
            if new.event_type == GAME_STARTED {
                return Err(Rejection::new(
                    index,
                    "/type",
                    crate::said!("server.log.refusal.game_started_appended"),
                ));
            }
            let event = LogEvent::new(seq, new.event_type.clone(), new.data.clone());
            let step = match log {
                // A retract, correction or abandon can change what came before: check the
                // whole log (needs_log made sure it is held).
                Some(log) if COMMON_EVENT_TYPES.contains(&new.event_type.as_str()) => {
                    log.push(event);
                    let last = &log[log.len() - 1];
                    replay::<R>(log)
                        .map(|replay| *current = replay)
                        .map_err(|fault| fault.into_rejection(index, last, log))
                }
                // A plain game event cannot change what came before: apply it to the state so far.
                Some(log) => {
                    let applied = current.apply_game_event(&event, None);
                    log.push(event);
                    let last = &log[log.len() - 1];
                    applied.map_err(|fault| fault.into_rejection(index, last, log))
                }
                None => current
                    .apply_game_event(&event, None)
                    .map_err(|fault| fault.into_rejection(index, &event, &[])),
            };
            step?;
            current.version = seq;
        }
        Ok(())
    }
}
