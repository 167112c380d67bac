//! What the write path hands on once a write is durable — the answer, the game as the commit
//! left it, what the live streams are told — and what it shares with SQLite's writer: the state
//! cache, the club rows, the subscribers and the group commit's counters. `Shared::committed`
//! is the one post-commit seam, for creations and appends alike, on both backends.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use tabletally_domain::Scoreboard;

use super::cache::StateCache;
use super::types::{ClubRecord, Committed, Subscribers, WriterCounters};
use crate::records::{HeldGame, StoredEvent};

/// What the write path shares with its writer task: the state cache, the live streams and the
/// group commit's counters.
pub(super) struct Shared {
    pub(super) cache: StateCache,
    /// A club's row changes only when its first token is replaced, which every server hears
    /// of, so the row a club token is checked against is read once per server.
    pub(super) clubs: Clubs,
    pub(super) subscribers: OnceLock<Arc<dyn Subscribers>>,
    batches: AtomicU64,
    batched: AtomicU64,
    largest_batch: AtomicU64,
}

/// Club rows by id, bounded: past [`Clubs::MAX`] the map starts again.
#[derive(Default)]
pub(super) struct Clubs(std::sync::Mutex<KeptClubs>);

#[derive(Default)]
struct KeptClubs {
    rows: std::collections::HashMap<String, ClubRecord>,
    /// Raised by every forget: a row read before one may be older than what it forgot, and
    /// is not kept ([`Clubs::ticket`]).
    forgets: u64,
}

/// Taken before a club's row is read, to keep what was read only if nothing was forgotten
/// meanwhile.
pub(super) struct ClubTicket(u64);

impl Clubs {
    const MAX: usize = 10_000;

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptClubs> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn get(&self, id: &str) -> Option<ClubRecord> {
        self.lock().rows.get(id).cloned()
    }

    pub(super) fn ticket(&self) -> ClubTicket {
        ClubTicket(self.lock().forgets)
    }

    /// Forgets one club's row (`None`: every club's).
    pub(super) fn forget(&self, club: Option<&str>) {
        let mut kept = self.lock();
        kept.forgets += 1;
        match club {
            Some(id) => {
                kept.rows.remove(id);
            }
            None => kept.rows.clear(),
        }
    }

    /// Keeps a row read after `ticket` was taken, unless a forget came in between (the row may
    /// then hold a first token that was replaced).
    pub(super) fn put(&self, club: ClubRecord, ticket: ClubTicket) {
        let mut kept = self.lock();
        if kept.forgets != ticket.0 {
            return;
        }
        if kept.rows.len() >= Self::MAX {
            kept.rows.clear();
        }
        kept.rows.insert(club.id.clone(), club);
    }
}

impl Shared {
    /// `authoritative`: this store's writer is the database's only one ([`StateCache`]).
    pub(super) fn new(authoritative: bool) -> Arc<Self> {
        let cache = StateCache::from_env();
        Arc::new(Self {
            cache: if authoritative {
                cache.authoritative()
            } else {
                cache
            },
            clubs: Clubs::default(),
            subscribers: OnceLock::new(),
            batches: AtomicU64::new(0),
            batched: AtomicU64::new(0),
            largest_batch: AtomicU64::new(0),
        })
    }

    /// The one post-commit seam: once a write is durable, its game's state goes into the cache
    /// and the commit to the live streams.
    pub(super) fn committed(&self, after: AfterCommit) {
        // Cached first: a phone that reads the score on a stream's word gets this version.
        let mut held = after.held;
        held.let_go_of_log();
        let held = Arc::new(held);
        self.cache.put_written(&after.club, held.clone());
        if let Some(subscribers) = self.subscribers.get() {
            subscribers.committed(Committed {
                club: &after.club,
                game: &held.game,
                previous_status: after.previous_status.as_deref(),
                events: after.events,
                scoreboard: after.scoreboard,
            });
        }
    }

    /// Counts one committed transaction of `requests` requests (1 on PostgreSQL).
    pub(super) fn count_batch(&self, requests: usize) {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.batched.fetch_add(requests as u64, Ordering::Relaxed);
        self.largest_batch
            .fetch_max(requests as u64, Ordering::Relaxed);
    }

    pub(super) fn writer_counters(&self) -> WriterCounters {
        WriterCounters {
            commits: self.batches.load(Ordering::Relaxed),
            requests: self.batched.load(Ordering::Relaxed),
            largest_batch: self.largest_batch.load(Ordering::Relaxed),
        }
    }
}

/// A write's answer, and what to do once its transaction is durable (`None`: nothing written).
pub(super) struct Written<T> {
    pub(super) answer: T,
    pub(super) after: Option<AfterCommit>,
}

/// What a write committed: reported to the live streams, its state held in the cache.
pub(super) struct AfterCommit {
    pub(super) club: String,
    pub(super) previous_status: Option<String>,
    pub(super) events: Vec<StoredEvent>,
    pub(super) scoreboard: Option<Scoreboard>,
    /// The game as the commit left it.
    pub(super) held: HeldGame,
}

impl AfterCommit {
    /// Its events' positions, now that the writer's batch's first one is known
    /// ([`settled_position`]).
    pub(super) fn settle(&mut self, first: i64) {
        for event in &mut self.events {
            event.position = settled_position(event.position, first);
        }
        for meta in self.held.meta_mut() {
            meta.position = settled_position(meta.position, first);
        }
    }
}

/// A position `Writes::provisional_position` gave, once the batch's first event's position
/// is known (`first`); a position read from the database is left as it is.
pub(super) fn settled_position(position: i64, first: i64) -> i64 {
    if position < 0 {
        first - position - 1
    } else {
        position
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provisional_positions_settle_in_insertion_order_from_the_batchs_first() {
        assert_eq!(settled_position(-1, 41), 41);
        assert_eq!(settled_position(-3, 41), 43);
        assert_eq!(settled_position(7, 41), 7);
    }

    fn club(hash: &str) -> ClubRecord {
        ClubRecord {
            id: "c1".into(),
            name: "Friday games".into(),
            token_hash: hash.into(),
        }
    }

    #[test]
    fn a_club_row_read_before_a_forget_is_not_kept() {
        let clubs = Clubs::default();
        let before = clubs.ticket();
        clubs.forget(Some("c1")); // the first token was replaced meanwhile

        clubs.put(club("old"), before);

        assert!(clubs.get("c1").is_none());
    }

    #[test]
    fn a_club_row_read_after_the_last_forget_is_kept_until_the_next() {
        let clubs = Clubs::default();
        clubs.forget(None);
        let after = clubs.ticket();

        clubs.put(club("new"), after);
        let kept = clubs.get("c1").map(|c| c.token_hash);
        clubs.forget(Some("c1"));

        assert_eq!(kept.as_deref(), Some("new"));
        assert!(clubs.get("c1").is_none());
    }
}
