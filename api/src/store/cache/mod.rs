//! A bounded in-memory cache of replayed game states, keyed by game id and version.
//!
//! The database decides the version, never the cache: an append reads the game's row (locked)
//! and uses an entry only when it is at that version; a score read does the same with the
//! row's version. So two servers on one PostgreSQL stay right: an entry one server holds for a
//! version another server moved past is simply not used, and is rebuilt from the log. The one
//! exception is a term, below: while no other writer can exist, nothing needs asking.
//!
//! While this server is the database's only writer, the cache can know an entry is current
//! without asking. On SQLite it always is (the store holds the database's server lock); on
//! PostgreSQL only while it holds the servers' lock alone ([`super::sole`]), each such time a
//! new *term*. An entry is current in a term when a write of this server that began in the
//! term put it (after its commit, or from inside the write transaction), or when a reader put
//! it and no write to the game began since before that reader read the database, in the same
//! term. A current entry of a game no write is writing answers a score read with no database
//! read at all ([`StateCache::current`]); when the term ends, nothing is current any more.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::records::HeldGame;

use super::recency::Recency;
use super::score_bodies::{DEFAULT_BODY_BYTES, ScoreBodies};

/// Games held by default (`TABLETALLY_CACHE_GAMES`): every game of a busy evening at many tables
/// — what the cache must hold are the games in progress (a club network's Friday evening:
/// 10,000 and more).
pub const DEFAULT_GAMES: usize = 12_000;
/// Bytes held at most, estimated (`TABLETALLY_CACHE_MB`, default 64): more than the 12,000 games
/// of any of the four halfway (2–4 KB each), and the score bodies read lately
/// (docs/bench-log/2026-12-06.md, "Held games smaller" and "A Vintage game's cards by number").
pub const DEFAULT_BYTES: usize = 64 << 20;
/// Games written last that keep the replay from before their last event, so that their table's
/// undo is a swap, not a read of the log and a whole replay: one a table at work, with room.
/// Older games let it go (a held game's size is what counts then).
pub const UNDOS_KEPT: usize = 128;

struct Entry {
    /// Shared with readers; the writer takes it out and continues it (copying only when a
    /// reader still holds it).
    held: Arc<HeldGame>,
    bytes: usize,
    /// Last use, for evicting the least recently used.
    tick: u64,
    /// The club whose game this is, once the entry is known to be the stored version.
    confirmed_for: Option<String>,
    /// The term in which it was known to be the stored version (see the module's docs).
    current_in: Option<u64>,
    /// The put, when a write put it keeping its undo (see [`UNDOS_KEPT`]).
    undo_from: Option<u64>,
}

/// Writes to a game bump one of these counters (chosen by the game's id) as they begin and
/// end; a reader's put is confirmed only when its counter did not move meanwhile.
const STRIPES: usize = 1024;

/// What a reader saw before reading the database: see [`StateCache::ticket`]. The stripe's
/// count (none while a write to the game is open) and the term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(Option<u64>, Option<u64>);

/// A time this server is the database's only writer.
#[derive(Debug, Clone, Copy)]
struct Term {
    number: u64,
    /// PostgreSQL: the term holds only until then, unless renewed (the servers' lock is lost
    /// with its connection, and nothing may be trusted that long after the database last
    /// answered). SQLite: no end.
    until: Option<Instant>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    /// The eviction order.
    recency: Recency,
    bytes: usize,
    /// Games with writes open (how many, and the term the oldest began in, if they all began
    /// in the same one): nothing about them is current until they end.
    writing: HashMap<String, Writing>,
    stripes: Vec<u64>,
    term: Option<Term>,
    /// The last term's number: a new term is never an old one.
    terms: u64,
    /// The games written last with their undo kept, oldest first: (id, the put).
    undos: VecDeque<(String, u64)>,
}

struct Writing {
    open: u32,
    term: Option<u64>,
}

/// The cache; cheap to share (one lock, held only to move an entry in or out).
pub struct StateCache {
    inner: Mutex<Inner>,
    max_games: usize,
    max_bytes: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Score reads answered with no database read ([`StateCache::current`]).
    alone: AtomicU64,
    /// The current scores' answer bodies of the games read lately, bounded apart.
    bodies: ScoreBodies,
}

/// The cache's counters, for `GET /metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheCounters {
    pub hits: u64,
    pub misses: u64,
    pub games: u64,
    /// The games held and the score bodies kept, estimated.
    pub bytes: u64,
    /// Reads answered with no database read.
    pub answered_alone: u64,
    /// This server is the database's only writer now (a term is open).
    pub sole: bool,
}

impl StateCache {
    pub fn new(max_games: usize, max_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                stripes: vec![0; STRIPES],
                ..Inner::default()
            }),
            max_games,
            max_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            alone: AtomicU64::new(0),
            bodies: ScoreBodies::new(if max_games == 0 {
                0
            } else {
                DEFAULT_BODY_BYTES
            }),
        }
    }

    /// The current scores' answer bodies kept for the games read lately.
    pub fn score_bodies(&self) -> &ScoreBodies {
        &self.bodies
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

    /// This cache's writer is the database's only writer for good (SQLite, server lock held):
    /// one term with no end.
    pub fn authoritative(self) -> Self {
        self.begin_term(None);
        self
    }

    /// A term begins: this server is now the database's only writer, until `until` (none: for
    /// good) unless renewed. Nothing from an earlier term is current in it.
    pub fn begin_term(&self, until: Option<Instant>) -> u64 {
        let mut inner = self.lock();
        inner.terms += 1;
        let number = inner.terms;
        inner.term = Some(Term { number, until });
        number
    }

    /// The term `number` holds until `until` now (ignored once it ended).
    pub fn renew_term(&self, number: u64, until: Instant) {
        let mut inner = self.lock();
        if let Some(term) = inner.term.as_mut().filter(|t| t.number == number) {
            term.until = Some(until);
        }
    }

    /// The term ends: from the moment this returns, no read is answered without the database.
    pub fn end_term(&self) {
        self.lock().term = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent maps (no partial updates).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The club's game as stored now, when this cache can say so without the database: an
    /// entry current in the open term, of a game no write is writing.
    pub fn current(&self, club: &str, id: &str) -> Option<Arc<HeldGame>> {
        let mut inner = self.lock();
        let term = inner.term_now()?;
        if inner.writing.contains_key(id) {
            return None;
        }
        let entry = inner.entries.get(id)?;
        if entry.current_in != Some(term) || entry.confirmed_for.as_deref() != Some(club) {
            return None;
        }
        let version = entry.held.game.version;
        let found = inner.touch(id, version).map(|entry| entry.held.clone());
        if found.is_some() {
            self.count(true);
            self.alone.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Whether a state of the game is held, or a write is under way that will put one (a
    /// SQLite append then needs no replay of its own before the writer's batch).
    pub fn holds(&self, id: &str) -> bool {
        let inner = self.lock();
        inner.entries.contains_key(id) || inner.writing.contains_key(id)
    }

    /// Taken by a reader before it reads the game from the database, and handed back with
    /// what it read ([`StateCache::get_read`], [`StateCache::put_read`]).
    pub fn ticket(&self, id: &str) -> Ticket {
        let inner = self.lock();
        Ticket(
            (!inner.writing.contains_key(id)).then(|| inner.stripes[stripe(id)]),
            inner.term_now(),
        )
    }

    /// The game's state if it is held at exactly `version`, asked by a reader that read that
    /// version from the database with `ticket`: the entry becomes confirmed when no write
    /// began since.
    pub fn get_read(
        &self,
        club: &str,
        id: &str,
        version: i64,
        ticket: Ticket,
    ) -> Option<Arc<HeldGame>> {
        let mut inner = self.lock();
        let still = inner.unchanged_since(id, ticket);
        let term = inner.current_term_of(ticket);
        let found = inner.touch(id, version).is_some();
        let found = found.then(|| {
            let entry = inner.entries.get_mut(id).expect("touched just now");
            if still && entry.confirmed_for.is_none() {
                entry.confirmed_for = Some(club.to_owned());
            }
            if still && entry.confirmed_for.as_deref() == Some(club) && term.is_some() {
                entry.current_in = term;
            }
            entry.held.clone()
        });
        self.count(found.is_some());
        found
    }

    /// Marks the start of a write to `id` (each is ended by [`StateCache::end_writes`]).
    /// Returns the term it began in: none when this server is not the database's only writer.
    pub fn begin_write(&self, id: &str) -> Option<u64> {
        let mut inner = self.lock();
        let term = inner.term_now();
        match inner.writing.get_mut(id) {
            Some(writing) => {
                writing.open += 1;
                writing.term = writing.term.filter(|t| Some(*t) == term);
            }
            None => {
                inner
                    .writing
                    .insert(id.to_owned(), Writing { open: 1, term });
                inner.stripes[stripe(id)] += 1;
            }
        }
        term
    }

    /// Writes to these games ended, one per id given (committed or rolled back; their entries
    /// are put or forgotten already).
    pub fn end_writes<'a>(&self, ids: impl IntoIterator<Item = &'a String>) {
        let mut inner = self.lock();
        for id in ids {
            let Some(writing) = inner.writing.get_mut(id.as_str()) else {
                continue;
            };
            writing.open -= 1;
            if writing.open == 0 {
                inner.writing.remove(id.as_str());
                inner.stripes[stripe(id)] += 1;
            }
        }
    }

    /// [`StateCache::begin_write`], ended when the guard is dropped (a write on its own task).
    pub fn writing<'a>(&'a self, id: &str) -> WriteGuard<'a> {
        let term = self.begin_write(id);
        WriteGuard {
            cache: self,
            id: id.to_owned(),
            term,
        }
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

    /// Takes the club's game's state out at whatever version it is held (PostgreSQL: an
    /// append decides from it first, and writes only if the row is still at that version). An
    /// entry not put for this club stays where it is.
    pub fn take_latest(&self, club: &str, id: &str) -> Option<HeldGame> {
        self.take_ours(club, id, false)
    }

    /// Takes the club's game's state out if it is current in the open term, for the
    /// database's sole writer to continue inside its batch: the entry is the game as stored,
    /// even while the batch writes it — a write of the batch took the entry out, and puts it
    /// back only once committed. The writer puts it back after its commit.
    pub fn take_confirmed(&self, club: &str, id: &str) -> Option<HeldGame> {
        self.take_ours(club, id, true)
    }

    /// The club's entry taken out (`current`: only if it is current in the open term).
    fn take_ours(&self, club: &str, id: &str, current: bool) -> Option<HeldGame> {
        let mut inner = self.lock();
        let term = inner.term_now();
        let ours = inner.entries.get(id).is_some_and(|e| {
            e.confirmed_for.as_deref() == Some(club)
                && (!current || (term.is_some() && e.current_in == term))
        });
        let found = ours
            .then(|| inner.remove(id).map(Arc::unwrap_or_clone))
            .flatten();
        // A miss is counted where the game is then read from the database (`take`).
        if found.is_some() {
            self.count(true);
        }
        found
    }

    /// Holds a game's state a write committed or read inside its write transaction: the stored
    /// version, once the write ends (a failed write forgets the game). Current only when every
    /// write open on the game began in the open term.
    pub fn put_written(&self, club: &str, held: impl Into<Arc<HeldGame>>) {
        self.put_as(held.into(), club, None);
    }

    /// Holds a game's state a reader replayed from what it read with `ticket`.
    pub fn put_read(&self, club: &str, held: impl Into<Arc<HeldGame>>, ticket: Ticket) {
        self.put_as(held.into(), club, Some(ticket));
    }

    /// Holds `held` (replacing any older version), confirmed for `club` when the writer put it
    /// (`ticket` none) or the reader's ticket still holds; evicts the least recently used
    /// beyond the bounds.
    fn put_as(&self, held: Arc<HeldGame>, club: &str, ticket: Option<Ticket>) {
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
        let same = inner
            .entries
            .get(&id)
            .filter(|e| e.held.game.version == held.game.version);
        let (confirmed_for, current_in) = match ticket {
            None => (
                Some(club.to_owned()),
                inner
                    .writing
                    .get(&id)
                    .and_then(|w| w.term)
                    .filter(|t| inner.term_now() == Some(*t)),
            ),
            Some(ticket) if inner.unchanged_since(&id, ticket) => {
                (Some(club.to_owned()), inner.current_term_of(ticket))
            }
            // The same version put again stays as known as it was.
            _ => (
                same.and_then(|e| e.confirmed_for.clone()),
                same.and_then(|e| e.current_in),
            ),
        };
        inner.remove(&id);
        let tick = inner.recency.used(&id, None);
        inner.bytes += bytes;
        let undo_from = (ticket.is_none() && held.keeps_undo()).then_some(tick);
        if undo_from.is_some() {
            inner.undos.push_back((id.clone(), tick));
        }
        inner.entries.insert(
            id,
            Entry {
                held,
                bytes,
                tick,
                confirmed_for,
                current_in,
                undo_from,
            },
        );
        while inner.undos.len() > UNDOS_KEPT {
            let Some((older, put)) = inner.undos.pop_front() else {
                break;
            };
            inner.let_go_of_undo(&older, put);
        }
        while inner.entries.len() > self.max_games || inner.bytes > self.max_bytes {
            let Some(oldest) = inner.recency.oldest() else {
                break;
            };
            if let Some(entry) = inner.entries.remove(&oldest) {
                inner.bytes -= entry.bytes;
            }
        }
    }

    /// Forgets a game (its commit failed after the state was advanced), and its score's body.
    pub fn forget(&self, id: &str) {
        self.lock().remove(id);
        self.bodies.forget(id);
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
            bytes: (inner.bytes + self.bodies.bytes()) as u64,
            answered_alone: self.alone.load(Ordering::Relaxed),
            sole: inner.term_now().is_some(),
        }
    }
}

/// A write open on a game while it lives ([`StateCache::writing`]).
pub struct WriteGuard<'a> {
    cache: &'a StateCache,
    id: String,
    term: Option<u64>,
}

impl WriteGuard<'_> {
    /// The term the write began in: none when this server was not the database's only writer.
    pub fn term(&self) -> Option<u64> {
        self.term
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        self.cache.end_writes([&self.id]);
    }
}

fn stripe(id: &str) -> usize {
    // FNV-1a: any spread will do; a shared stripe only costs a confirmation.
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (hash % STRIPES as u64) as usize
}

impl Inner {
    /// No write to `id` is open, nor began or ended since `ticket` was taken.
    fn unchanged_since(&self, id: &str, ticket: Ticket) -> bool {
        ticket.0 == Some(self.stripes[stripe(id)]) && !self.writing.contains_key(id)
    }

    /// The open term, if it still holds.
    fn term_now(&self) -> Option<u64> {
        self.term
            .filter(|t| t.until.is_none_or(|until| Instant::now() < until))
            .map(|t| t.number)
    }

    /// The open term, if `ticket` was taken in it.
    fn current_term_of(&self, ticket: Ticket) -> Option<u64> {
        self.term_now().filter(|t| ticket.1 == Some(*t))
    }

    fn touch(&mut self, id: &str, version: i64) -> Option<&Entry> {
        let entry = self.entries.get_mut(id)?;
        if entry.held.game.version != version {
            return None;
        }
        entry.tick = self.recency.used(id, Some(entry.tick));
        self.entries.get(id)
    }

    /// The game `id` lets its undo go, if it is still held as that put kept it.
    fn let_go_of_undo(&mut self, id: &str, put: u64) {
        let Some(entry) = self
            .entries
            .get_mut(id)
            .filter(|e| e.undo_from == Some(put))
        else {
            return;
        };
        // A reader holding this state keeps its own copy.
        Arc::make_mut(&mut entry.held).let_go_of_undo();
        entry.undo_from = None;
        let bytes = entry.held.bytes();
        self.bytes = self.bytes - entry.bytes + bytes;
        entry.bytes = bytes;
    }

    fn remove(&mut self, id: &str) -> Option<Arc<HeldGame>> {
        let entry = self.entries.remove(id)?;
        self.recency.forget(entry.tick);
        self.bytes -= entry.bytes;
        Some(entry.held)
    }
}

#[cfg(test)]
mod tests;
