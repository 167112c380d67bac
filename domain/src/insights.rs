//! What only a rule-aware service can tell a club about a game: its insights, built from the
//! facts each finished game leaves behind (damage per card kind, objective hits, bets …).
//!
//! A game says what its facts are with a typed key ([`FactKey`]): the scoring writes a fact
//! with it and the insights read the sums back with it, so a key's text is spelt in one place.
//! The server sums the stored facts of a club's games into [`FactSums`] and asks the game's
//! ruleset for its insights; it knows no game of its own.

use std::collections::BTreeMap;

/// A fact's key in a game's own words, e.g. Mint Condition's `Damage(Kind::FineWine)`, stored
/// as `damage:fine-wine`.
pub trait FactKey: Sized {
    /// The key as stored.
    fn key(&self) -> String;
    /// The typed key of a stored one, or `None` when it is another key.
    fn parse(key: &str) -> Option<Self>;
}

/// Facts every game may leave, whatever its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommonKey {
    /// A game whose final scores were typed in (`result_recorded`), valued at its number of
    /// seats: its results count in the statistics, but it has no rule-aware facts, so the
    /// insights leave its play and seats out.
    ResultRecorded,
}

impl FactKey for CommonKey {
    fn key(&self) -> String {
        match self {
            CommonKey::ResultRecorded => "result_recorded".into(),
        }
    }

    fn parse(key: &str) -> Option<Self> {
        (key == "result_recorded").then_some(CommonKey::ResultRecorded)
    }
}

/// An insight a game declares: its field in the game's statistics and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insight {
    pub name: &'static str,
    pub meaning: &'static str,
}

/// One fact summed over games: its values added up, and how many times it was recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sum {
    pub sum: i64,
    pub count: i64,
}

/// A club's facts of one game (and variant), summed over its finished games.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FactSums {
    /// Finished games.
    pub plays: i64,
    /// Finished seats (one per player per game).
    pub results: i64,
    sums: BTreeMap<String, Sum>,
}

impl FactSums {
    /// Facts of `plays` finished games with `results` seats in all; the plays whose result was
    /// typed in are left out by [`FactSums::without_typed_in_results`].
    pub fn new(plays: i64, results: i64) -> Self {
        Self {
            plays,
            results,
            sums: BTreeMap::new(),
        }
    }

    /// Leaves out the games whose result was typed in: they have no rule-aware facts.
    pub fn without_typed_in_results(mut self) -> Self {
        let typed_in = self.get(&CommonKey::ResultRecorded);
        self.plays -= typed_in.count;
        self.results -= typed_in.sum;
        self
    }

    /// Adds a stored key's sum.
    pub fn add(&mut self, key: &str, sum: Sum) {
        let entry = self.sums.entry(key.to_owned()).or_default();
        entry.sum += sum.sum;
        entry.count += sum.count;
    }

    /// The sum of one key (zero when no game recorded it).
    pub fn get(&self, key: &impl FactKey) -> Sum {
        self.sums.get(&key.key()).copied().unwrap_or_default()
    }

    /// Every recorded key of this type with its sum, in stored-key order.
    pub fn all<K: FactKey>(&self) -> impl Iterator<Item = (K, Sum)> + '_ {
        self.sums
            .iter()
            .filter_map(|(key, sum)| K::parse(key).map(|k| (k, *sum)))
    }

    /// A sum per finished seat ("average per player per game"), to three decimals.
    pub fn per_result(&self, sum: i64) -> f64 {
        ratio(sum, self.results)
    }
}

/// `part / whole` to three decimals; 0 when `whole` is 0.
pub fn ratio(part: i64, whole: i64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        round3(part as f64 / whole as f64)
    }
}

/// Rounds to three decimals, as every figure of the statistics is.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Sums the facts of finished games as the server stores them: one value per key and seat.
#[cfg(test)]
pub(crate) fn summed(games: &[crate::Evaluation]) -> FactSums {
    let mut sums = FactSums::new(0, 0);
    for evaluation in games {
        assert_eq!(evaluation.status, crate::Status::Finished);
        sums.plays += 1;
        sums.results += evaluation.scoreboard.players.len() as i64;
        let mut by_seat: BTreeMap<(Option<&str>, &str), i64> = BTreeMap::new();
        for fact in &evaluation.facts {
            *by_seat
                .entry((fact.player.as_deref(), fact.key.as_str()))
                .or_default() += fact.value;
        }
        for ((_, key), sum) in by_seat {
            sums.add(key, Sum { sum, count: 1 });
        }
    }
    sums
}

/// The insights' names, sorted, as a declared list must produce them.
#[cfg(test)]
pub(crate) fn names(declared: &[Insight]) -> Vec<&'static str> {
    let mut names: Vec<&str> = declared.iter().map(|i| i.name).collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Key {
        Damage(String),
        Decided,
    }

    impl FactKey for Key {
        fn key(&self) -> String {
            match self {
                Key::Damage(kind) => format!("damage:{kind}"),
                Key::Decided => "decided".into(),
            }
        }
        fn parse(key: &str) -> Option<Self> {
            match key.strip_prefix("damage:") {
                Some(kind) => Some(Key::Damage(kind.into())),
                None => (key == "decided").then_some(Key::Decided),
            }
        }
    }

    #[test]
    fn sums_are_read_back_by_their_typed_key_and_missing_keys_are_zero() {
        let mut sums = FactSums::new(2, 6);
        sums.add("damage:memories", Sum { sum: 7, count: 1 });
        sums.add("damage:memories", Sum { sum: 3, count: 2 });
        sums.add("decided", Sum { sum: 1, count: 2 });
        sums.add("other", Sum { sum: 9, count: 9 });

        assert_eq!(
            sums.get(&Key::Damage("memories".into())),
            Sum { sum: 10, count: 3 }
        );
        assert_eq!(sums.get(&Key::Damage("fine-wine".into())), Sum::default());
        let all: Vec<(Key, i64)> = sums.all::<Key>().map(|(k, s)| (k, s.sum)).collect();
        assert_eq!(
            all,
            vec![(Key::Damage("memories".into()), 10), (Key::Decided, 1)]
        );
        // 10 damage over 6 seats.
        assert_eq!(sums.per_result(10), 1.667);
        assert_eq!(ratio(1, 3), 0.333);
        assert_eq!(ratio(1, 0), 0.0);
    }
}
