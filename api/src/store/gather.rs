//! PostgreSQL: concurrent asks gathered into one statement each turn.
//!
//! An ask that finds no statement in flight is answered at once, on its own task (a lone ask
//! pays nothing extra). Asks made while a statement is in flight wait, and when it ends they all
//! get the next statement, on a task of its own. So every ask is answered by a statement sent
//! after it was made. Score reads gather their version checks this way ([`super::versions`]),
//! and plain appends their writes ([`super::plain`]).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

use super::error::StoreError;

/// What one statement does for the asks of a turn.
pub(super) trait Gather: Send + Sync + 'static {
    /// An ask, with the means to answer it (a `oneshot` sender).
    type Ask: Send + 'static;
    /// Asks answered by one statement at most.
    const MOST: usize;
    /// Answers each of `asks` through its own reply.
    fn answer(&self, asks: Vec<Self::Ask>) -> impl Future<Output = ()> + Send;
}

pub(super) struct Gathered<G: Gather> {
    inner: Arc<Inner<G>>,
}

struct Inner<G: Gather> {
    gather: G,
    /// Where the statements for waiting asks run (any thread may end a turn).
    runtime: tokio::runtime::Handle,
    turns: Mutex<Turns<G::Ask>>,
}

struct Turns<A> {
    /// A statement is in flight: new asks wait for the next one.
    in_flight: bool,
    waiting: Vec<A>,
}

impl<G: Gather> Gathered<G> {
    /// Called inside the runtime the statements for waiting asks are to run on.
    pub(super) fn start(gather: G) -> Self {
        Self {
            inner: Arc::new(Inner {
                gather,
                runtime: tokio::runtime::Handle::current(),
                turns: Mutex::new(Turns {
                    in_flight: false,
                    waiting: Vec::new(),
                }),
            }),
        }
    }

    /// Answers `ask` now, on this task, when no statement is in flight; otherwise it waits for
    /// the next statement. Either way the answer comes through the ask's own reply.
    pub(super) async fn ask(&self, ask: G::Ask) {
        let now = {
            let mut turns = self.inner.turns();
            if turns.in_flight {
                turns.waiting.push(ask);
                None
            } else {
                turns.in_flight = true;
                Some(ask)
            }
        };
        if let Some(ask) = now {
            // Ends this turn however the statement ends, dropped midway included.
            let _turn = Turn(&self.inner);
            self.inner.gather.answer(vec![ask]).await;
        }
    }
}

impl<G: Gather> Inner<G> {
    fn turns(&self) -> MutexGuard<'_, Turns<G::Ask>> {
        self.turns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A statement ended: the asks made meanwhile get the next one, on a task of its own.
    fn next_turn(self: Arc<Self>) {
        let asks = {
            let mut turns = self.turns();
            if turns.waiting.is_empty() {
                turns.in_flight = false;
                return;
            }
            let taken = turns.waiting.len().min(G::MOST);
            let rest = turns.waiting.split_off(taken);
            std::mem::replace(&mut turns.waiting, rest)
        };
        let runtime = self.runtime.clone();
        runtime.spawn(async move {
            self.gather.answer(asks).await;
            self.next_turn();
        });
    }
}

struct Turn<'a, G: Gather>(&'a Arc<Inner<G>>);

impl<G: Gather> Drop for Turn<'_, G> {
    fn drop(&mut self) {
        self.0.clone().next_turn();
    }
}

/// The answer an ask's reply brings; a reply dropped unsent (the statement's task ended with
/// the runtime) is the store closing.
pub(super) async fn answered<T>(
    reply: oneshot::Receiver<Result<T, StoreError>>,
) -> Result<T, StoreError> {
    reply
        .await
        .unwrap_or_else(|_| Err(StoreError::Database(sqlx::Error::PoolClosed)))
}
