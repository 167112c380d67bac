//! What the random-game tests share: a seeded generator, so a failure repeats.
// Each test crate uses the part it needs.
#![allow(dead_code)]

/// A small deterministic generator (SplitMix64): the same seed, the same games.
#[derive(Clone)]
pub struct Dice(pub u64);

impl Dice {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// 0 ≤ n < `below`.
    pub fn below(&mut self, below: usize) -> usize {
        (self.next() % below.max(1) as u64) as usize
    }

    pub fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn shuffled<T: Clone>(&mut self, items: &[T]) -> Vec<T> {
        let mut items = items.to_vec();
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
        items
    }
}
