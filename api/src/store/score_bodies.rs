//! The current score's answer body of the games whose score was read lately, kept apart from
//! the games held: a body is as large as a held game or larger, and a game in progress pays for
//! one only while its score is being looked at. A body is made by the first score read of a
//! version and answers the next ones at that version without evaluating anything.

use std::collections::HashMap;
use std::sync::Mutex;

use actix_web::web::Bytes;

use super::recency::Recency;

/// Bytes of bodies kept at most: the scores of the last few hundred games read (a body is
/// 1–6 KB), which covers the phones of every table that just recorded a round.
pub const DEFAULT_BODY_BYTES: usize = 1 << 20;

/// What a kept body costs besides its bytes: its key twice, the map slots, the `Bytes`.
const BODY_OVERHEAD: usize = 160;

struct Body {
    version: i64,
    body: Bytes,
    tick: u64,
}

#[derive(Default)]
struct Bodies {
    by_game: HashMap<String, Body>,
    /// The eviction order.
    recency: Recency,
    bytes: usize,
}

pub struct ScoreBodies {
    inner: Mutex<Bodies>,
    max_bytes: usize,
}

impl ScoreBodies {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            inner: Mutex::new(Bodies::default()),
            max_bytes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Bodies> {
        // A panic while holding it leaves consistent maps (no partial updates).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The body kept for the game `id` at `version`, if any.
    pub fn get(&self, id: &str, version: i64) -> Option<Bytes> {
        let Bodies {
            by_game, recency, ..
        } = &mut *self.lock();
        let found = by_game.get_mut(id).filter(|b| b.version == version)?;
        found.tick = recency.used(id, Some(found.tick));
        Some(found.body.clone())
    }

    /// Keeps `body` as the game's at `version` (replacing any other), the least recently read
    /// going first beyond the bound.
    pub fn put(&self, id: &str, version: i64, body: Bytes) {
        let cost = body.len() + BODY_OVERHEAD;
        if cost > self.max_bytes {
            return;
        }
        let mut inner = self.lock();
        if inner
            .by_game
            .get(id)
            .is_some_and(|kept| kept.version > version)
        {
            return;
        }
        inner.remove(id);
        let tick = inner.recency.used(id, None);
        inner.bytes += cost;
        inner.by_game.insert(
            id.to_owned(),
            Body {
                version,
                body,
                tick,
            },
        );
        while inner.bytes > self.max_bytes {
            let Some(oldest) = inner.recency.oldest() else {
                break;
            };
            if let Some(gone) = inner.by_game.remove(&oldest) {
                inner.bytes -= gone.body.len() + BODY_OVERHEAD;
            }
        }
    }

    /// Forgets the game's body.
    pub fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    /// The bytes kept, estimated.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

impl Bodies {
    fn remove(&mut self, id: &str) {
        if let Some(gone) = self.by_game.remove(id) {
            self.recency.forget(gone.tick);
            self.bytes -= gone.body.len() + BODY_OVERHEAD;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_answers_only_for_its_version() {
        let bodies = ScoreBodies::new(DEFAULT_BODY_BYTES);
        bodies.put("g1", 3, Bytes::from_static(b"{\"version\":3}"));

        assert!(bodies.get("g1", 4).is_none());
        assert_eq!(
            bodies.get("g1", 3).as_deref(),
            Some(&b"{\"version\":3}"[..])
        );
        // An older version's body made late does not replace it.
        bodies.put("g1", 2, Bytes::from_static(b"{\"version\":2}"));
        assert!(bodies.get("g1", 3).is_some());
        bodies.forget("g1");
        assert!(bodies.get("g1", 3).is_none());
        assert_eq!(bodies.bytes(), 0);
    }

    #[test]
    fn the_least_recently_read_body_goes_first_when_full() {
        let body = Bytes::from(vec![b' '; 100]);
        let bodies = ScoreBodies::new(2 * (100 + BODY_OVERHEAD));
        bodies.put("g1", 1, body.clone());
        bodies.put("g2", 1, body.clone());
        assert!(bodies.get("g1", 1).is_some());

        bodies.put("g3", 1, body);

        assert!(bodies.get("g2", 1).is_none());
        assert!(bodies.get("g1", 1).is_some());
        assert!(bodies.get("g3", 1).is_some());
        assert_eq!(bodies.bytes(), 2 * (100 + BODY_OVERHEAD));
    }
}
