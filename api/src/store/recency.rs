//! The order in which kept entries were last used, so that a bounded keep lets the least
//! recently used go first: the state cache's games and the score bodies both keep one.

use std::collections::BTreeMap;

#[derive(Default)]
pub(super) struct Recency {
    /// Use (a tick) → the entry's id, oldest first.
    by_use: BTreeMap<u64, String>,
    tick: u64,
}

impl Recency {
    /// Notes `id` as used now, replacing its last use (`before`) if it had one: its new use.
    pub fn used(&mut self, id: &str, before: Option<u64>) -> u64 {
        if let Some(before) = before {
            self.by_use.remove(&before);
        }
        self.tick += 1;
        self.by_use.insert(self.tick, id.to_owned());
        self.tick
    }

    /// Forgets the use of an entry let go.
    pub fn forget(&mut self, used: u64) {
        self.by_use.remove(&used);
    }

    /// The least recently used entry's id, taken out of the order.
    pub fn oldest(&mut self) -> Option<String> {
        self.by_use.pop_first().map(|(_, id)| id)
    }
}
