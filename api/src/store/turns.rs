//! Turns at a limited resource, taken by club: a fair queue.
//!
//! A first-come queue lets one club's burst stand in front of everybody else: 32 phones of one
//! club correcting as fast as they can kept another club's write waiting for all of theirs.
//! Here each club waiting has its own line, and a turn given back goes to the next club in
//! rotation, so a club that arrives behind a burst waits for one turn of each club ahead of
//! it, not for the burst. Within a club, first come, first served. The same rotation orders the
//! requests of one of SQLite's batches ([`clubs_in_turn`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

/// A number of turns, shared by clubs in rotation.
pub(super) struct Turns {
    state: Mutex<State>,
}

struct State {
    /// Turns no one holds.
    free: usize,
    /// Each waiting club's line.
    lines: HashMap<String, VecDeque<oneshot::Sender<Turn>>>,
    /// Clubs with someone waiting, in the order they are served.
    rotation: VecDeque<String>,
}

/// A turn held; dropped, it goes to the next club in rotation.
pub(super) struct Turn {
    turns: Option<Arc<Turns>>,
}

impl Turns {
    pub(super) fn new(turns: usize) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State {
                free: turns,
                lines: HashMap::new(),
                rotation: VecDeque::new(),
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is changed in single steps: a panic leaves it whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for a turn in `club`'s line. Dropped while waiting, it leaves the line (a turn
    /// handed to it meanwhile goes on to the next).
    pub(super) async fn take(self: &Arc<Self>, club: &str) -> Turn {
        let waiting = {
            let mut state = self.lock();
            if state.free > 0 && state.rotation.is_empty() {
                state.free -= 1;
                return Turn {
                    turns: Some(Arc::clone(self)),
                };
            }
            let (handed, waiting) = oneshot::channel();
            let state = &mut *state;
            let line = state.lines.entry(club.to_owned()).or_default();
            if line.is_empty() {
                state.rotation.push_back(club.to_owned());
            }
            line.push_back(handed);
            waiting
        };
        match waiting.await {
            Ok(turn) => turn,
            // Its sender is only dropped with the state, which this future's `self` keeps.
            Err(_) => unreachable!("a waiting turn's sender outlives its receiver"),
        }
    }

    /// A turn given back: to the next club in rotation, or free.
    fn pass_on(self: &Arc<Self>) {
        loop {
            let handed = {
                let mut state = self.lock();
                let Some(club) = state.rotation.pop_front() else {
                    state.free += 1;
                    return;
                };
                let line = state
                    .lines
                    .get_mut(&club)
                    .expect("a club in rotation has a line");
                let handed = line.pop_front().expect("a line in rotation is not empty");
                if line.is_empty() {
                    state.lines.remove(&club);
                } else {
                    state.rotation.push_back(club);
                }
                handed
            };
            match handed.send(Turn {
                turns: Some(Arc::clone(self)),
            }) {
                Ok(()) => return,
                // Gone while waiting: the next one's turn (without passing it on twice).
                Err(mut unwanted) => {
                    unwanted.turns = None;
                }
            }
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(turns) = self.turns.take() {
            turns.pass_on();
        }
    }
}

/// `items` one club after another: the first of each club (in the order the clubs first
/// appear), then the second of each…; a club's own in the order given. A batch of the writer
/// takes its requests in this order.
pub(super) fn clubs_in_turn<T>(items: Vec<T>, club: impl Fn(&T) -> &str) -> Vec<T> {
    let mut lines: Vec<(String, VecDeque<T>)> = Vec::new();
    for item in items {
        match lines.iter_mut().find(|(c, _)| c == club(&item)) {
            Some((_, line)) => line.push_back(item),
            None => lines.push((club(&item).to_owned(), [item].into())),
        }
    }
    let mut in_turn = Vec::with_capacity(lines.iter().map(|(_, l)| l.len()).sum());
    while !lines.is_empty() {
        lines.retain_mut(|(_, line)| match line.pop_front() {
            Some(item) => {
                in_turn.push(item);
                !line.is_empty()
            }
            None => false,
        });
    }
    in_turn
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Polls a future once: its value if it is ready now.
    fn now<F: std::future::Future>(future: F) -> Option<F::Output> {
        use futures_util::FutureExt;
        future.now_or_never()
    }

    #[tokio::test]
    async fn a_club_arriving_behind_a_burst_is_served_after_one_turn_not_after_the_burst() {
        let turns = Turns::new(1);
        let held = turns.take("friday").await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for (club, n) in [("friday", 1), ("friday", 2), ("friday", 3), ("monday", 1)] {
            let (turns, order) = (Arc::clone(&turns), Arc::clone(&order));
            waiting.push(tokio::spawn(async move {
                let turn = turns.take(club).await;
                order.lock().unwrap().push(format!("{club} {n}"));
                tokio::time::sleep(Duration::from_millis(5)).await;
                drop(turn);
            }));
            // Each in line before the next arrives.
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        drop(held);
        for task in waiting {
            task.await.unwrap();
        }

        assert_eq!(
            *order.lock().unwrap(),
            ["friday 1", "monday 1", "friday 2", "friday 3"]
        );
    }

    #[tokio::test]
    async fn a_turn_handed_to_a_waiter_that_left_goes_to_the_next() {
        let turns = Turns::new(1);
        let held = turns.take("friday").await;
        let mut gone = Box::pin(turns.take("monday"));
        assert!(now(&mut gone).is_none(), "monday waits");
        let mut next = Box::pin(turns.take("tuesday"));
        assert!(now(&mut next).is_none(), "tuesday waits");
        drop(gone);
        drop(held);

        let turn = now(&mut next).expect("tuesday has the turn monday left");
        drop(turn);
        assert!(
            now(turns.take("wednesday")).is_some(),
            "the turn is free again"
        );
    }

    #[tokio::test]
    async fn turns_are_free_until_all_are_held() {
        let turns = Turns::new(2);
        let _one = turns.take("friday").await;
        let _two = turns.take("friday").await;

        assert!(now(turns.take("monday")).is_none());
    }

    #[test]
    fn a_batch_takes_one_request_of_each_club_in_turn_so_a_burst_does_not_go_first() {
        let requests = vec![
            ("friday", "f1"),
            ("friday", "f2"),
            ("friday", "f3"),
            ("monday", "m1"),
            ("tuesday", "t1"),
            ("monday", "m2"),
        ];

        let in_turn = clubs_in_turn(requests, |(club, _)| club);

        let ids: Vec<&str> = in_turn.iter().map(|(_, id)| *id).collect();
        assert_eq!(ids, ["f1", "m1", "t1", "f2", "m2", "f3"]);
    }
}
