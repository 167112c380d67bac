//! A bounded in-memory cache of replayed game states, keyed by game id and version.
//!
//! The database decides the version, never the cache: an append reads the game's row (locked)
//! and uses an entry only when it is at that version; a score read does the same with the
//! row's version. So two servers on one PostgreSQL stay right: an entry one server holds for a
//! version another server moved past is simply not used, and is rebuilt from the log.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::records::HeldGame;

/// Games held by default (`TABLETALLY_CACHE_GAMES`): every game of a busy evening at many tables.
pub const DEFAULT_GAMES: usize = 10_000;
/// Bytes of event data held at most, estimated (`TABLETALLY_CACHE_MB`, default 64).
pub const DEFAULT_BYTES: usize = 64 << 20;

struct Entry {
    /// Shared with readers; the writer takes it out and continues it (copying only when a
    /// reader still holds it).
    held: Arc<HeldGame>,
    bytes: usize,
    /// Last use, for evicting the least recently used.
    tick: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    /// tick → game id: the eviction order.
    by_use: BTreeMap<u64, String>,
    bytes: usize,
    tick: u64,
}

/// The cache; cheap to share (one lock, held only to move an entry in or out).
pub struct StateCache {
    inner: Mutex<Inner>,
    max_games: usize,
    max_bytes: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// The cache's counters, for `GET /metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheCounters {
    pub hits: u64,
    pub misses: u64,
    pub games: u64,
    pub bytes: u64,
}

impl StateCache {
    pub fn new(max_games: usize, max_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            max_games,
            max_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The bounds from `TABLETALLY_CACHE_GAMES` and `TABLETALLY_CACHE_MB` (0 games: no cache).
    pub fn from_env() -> Self {
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
        };
        Self::new(
            number("TABLETALLY_CACHE_GAMES").unwrap_or(DEFAULT_GAMES),
            number("TABLETALLY_CACHE_MB").map_or(DEFAULT_BYTES, |mb| mb << 20),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent maps (no partial updates).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game's state if it is held at exactly `version`.
    pub fn get(&self, id: &str, version: i64) -> Option<Arc<HeldGame>> {
        let mut inner = self.lock();
        let found = inner.touch(id, version).map(|e| e.held.clone());
        self.count(found.is_some());
        found
    }

    /// Takes the game's state out if it is held at exactly `version` (the writer continues it
    /// and puts it back after its commit); an entry at another version is dropped.
    pub fn take(&self, id: &str, version: i64) -> Option<HeldGame> {
        let mut inner = self.lock();
        let found = match inner.entries.get(id) {
            Some(entry) if entry.held.game.version == version => {
                inner.remove(id).map(Arc::unwrap_or_clone)
            }
            Some(_) => {
                inner.remove(id);
                None
            }
            None => None,
        };
        self.count(found.is_some());
        found
    }

    /// Holds a game's state (replacing any older one), evicting the least recently used
    /// beyond the bounds.
    pub fn put(&self, held: impl Into<Arc<HeldGame>>) {
        let held = held.into();
        if self.max_games == 0 {
            return;
        }
        let bytes = held.bytes();
        if bytes > self.max_bytes {
            return;
        }
        let mut inner = self.lock();
        let id = held.game.id.clone();
        // A reader that replayed an older version must not replace what a commit put since.
        if inner
            .entries
            .get(&id)
            .is_some_and(|e| e.held.game.version > held.game.version)
        {
            return;
        }
        inner.remove(&id);
        inner.tick += 1;
        let tick = inner.tick;
        inner.by_use.insert(tick, id.clone());
        inner.bytes += bytes;
        inner.entries.insert(id, Entry { held, bytes, tick });
        while inner.entries.len() > self.max_games || inner.bytes > self.max_bytes {
            let Some((_, oldest)) = inner.by_use.pop_first() else {
                break;
            };
            if let Some(entry) = inner.entries.remove(&oldest) {
                inner.bytes -= entry.bytes;
            }
        }
    }

    /// Forgets a game (its commit failed after the state was advanced).
    pub fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    fn count(&self, hit: bool) {
        let counter = if hit { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub fn counters(&self) -> CacheCounters {
        let inner = self.lock();
        CacheCounters {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            games: inner.entries.len() as u64,
            bytes: inner.bytes as u64,
        }
    }
}

impl Inner {
    fn touch(&mut self, id: &str, version: i64) -> Option<&Entry> {
        let entry = self.entries.get_mut(id)?;
        if entry.held.game.version != version {
            return None;
        }
        self.tick += 1;
        self.by_use.remove(&entry.tick);
        entry.tick = self.tick;
        self.by_use.insert(self.tick, id.to_owned());
        self.entries.get(id)
    }

    fn remove(&mut self, id: &str) -> Option<Arc<HeldGame>> {
        let entry = self.entries.remove(id)?;
        self.by_use.remove(&entry.tick);
        self.bytes -= entry.bytes;
        Some(entry.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{GameRecord, StoredEvent};
    use chrono::Utc;
    use serde_json::json;

    fn held(id: &str, version: i64) -> HeldGame {
        let game = GameRecord {
            id: id.into(),
            game: "mint-condition".into(),
            status: "in_progress".into(),
            version,
            options: json!({}),
            players: vec![],
            started_at: Utc::now(),
            updated_at: Utc::now(),
        };
        let started = StoredEvent {
            position: 1,
            seq: 1,
            id: id.into(),
            event_type: "game_started".into(),
            schema_version: 3,
            data: json!({"game": "mint-condition", "players": [
                {"name": "Ann", "seat": 1}, {"name": "Bo", "seat": 2}
            ], "options": tabletally_domain::Game::MintCondition.default_options()}),
            recorded_at: Utc::now(),
            recorded_by: None,
        };
        HeldGame::replay(game, vec![started]).expect("a game start replays")
    }

    #[test]
    fn an_entry_answers_only_for_the_version_it_holds() {
        let cache = StateCache::new(10, DEFAULT_BYTES);
        cache.put(held("g1", 1));

        assert!(cache.get("g1", 2).is_none());
        assert!(cache.get("g1", 1).is_some());
        assert_eq!(
            cache.counters(),
            CacheCounters {
                hits: 1,
                misses: 1,
                games: 1,
                bytes: held("g1", 1).bytes() as u64
            }
        );
    }

    #[test]
    fn taking_at_another_version_drops_the_stale_entry() {
        let cache = StateCache::new(10, DEFAULT_BYTES);
        cache.put(held("g1", 1));

        assert!(cache.take("g1", 3).is_none());

        assert!(cache.get("g1", 1).is_none());
        assert_eq!(cache.counters().games, 0);
        assert_eq!(cache.counters().bytes, 0);
    }

    #[test]
    fn an_older_version_put_late_does_not_replace_a_newer_one() {
        let cache = StateCache::new(10, DEFAULT_BYTES);
        cache.put(held("g1", 3));

        // A score read replayed version 2 while a commit moved the game to 3.
        cache.put(held("g1", 2));

        assert!(cache.get("g1", 2).is_none());
        assert!(cache.get("g1", 3).is_some());
        assert_eq!(cache.counters().games, 1);
    }

    #[test]
    fn the_least_recently_used_game_goes_first_when_full() {
        let cache = StateCache::new(2, DEFAULT_BYTES);
        cache.put(held("g1", 1));
        cache.put(held("g2", 1));
        assert!(cache.get("g1", 1).is_some());

        cache.put(held("g3", 1));

        assert!(cache.get("g2", 1).is_none());
        assert!(cache.get("g1", 1).is_some());
        assert!(cache.get("g3", 1).is_some());
    }

    #[test]
    fn the_byte_bound_holds_as_well_as_the_count() {
        let one = held("g1", 1).bytes();
        let cache = StateCache::new(100, one * 2);
        for id in ["g1", "g2", "g3"] {
            cache.put(held(id, 1));
        }

        assert_eq!(cache.counters().games, 2);
        assert!(cache.counters().bytes <= (one * 2) as u64);
        assert!(cache.get("g1", 1).is_none());
    }
}
