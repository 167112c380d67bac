//! Finished seats summed: what a game's statistics over a period, a day's or a month's bucket
//! amount to, folded from seats or from other sums alike.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::records::{GameRecord, GameResult};
use crate::store::error::StoreError;

use super::rows::FactTotal;

/// One finished seat of a game, as read for the game's statistics.
pub(super) struct SeatResult {
    pub(super) game_id: String,
    /// Every game has a seat 1: it counts the game once.
    pub(super) seat: i64,
    pub(super) played_at: DateTime<Utc>,
    pub(super) total: i64,
    /// The game's scoreboard said the lowest total won.
    pub(super) lower_wins: bool,
    /// The seat's facts, `{"key": value}`.
    pub(super) facts: Option<String>,
    /// The whole game's facts, given with one seat of each game only.
    pub(super) game_facts: Option<String>,
}

/// The lowest or highest total: the earliest such result (then by game id and seat) holds
/// the record, so both databases name the same holder whatever order they read rows in, and
/// sums of days and months name the same holder as the seats they sum. The holder is the
/// player in that seat now (a merge of players moves seats).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Record {
    pub(super) total: i64,
    pub(super) played_at: DateTime<Utc>,
    pub(super) game_id: String,
    pub(super) seat: i64,
}

impl Record {
    /// Who holds the record first: the earlier game, then the lower game id, then seat.
    pub(super) fn earlier_than(&self, other: &Record) -> bool {
        (self.played_at, &self.game_id, self.seat) < (other.played_at, &other.game_id, other.seat)
    }
}

/// Finished seats summed: a game's statistics over a period, and what a day's or a month's
/// games amount to (a row of `game_buckets`). Sums of sums are the same as the sum of the
/// seats, so a period reads whole months and days and adds the seats of its partial days.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct GameSummary {
    pub(super) plays: i64,
    pub(super) results: i64,
    pub(super) total_sum: i64,
    /// Seats of games the lowest total won.
    pub(super) lower_results: i64,
    pub(super) lowest: Option<Record>,
    pub(super) highest: Option<Record>,
    /// `(key, per_player) → (sum, count)`.
    pub(super) facts: BTreeMap<(String, bool), (i64, i64)>,
}

impl GameSummary {
    pub(super) fn add(&mut self, seat: SeatResult) -> Result<(), StoreError> {
        if seat.seat == 1 {
            self.plays += 1;
        }
        self.results += 1;
        self.total_sum += seat.total;
        self.lower_results += i64::from(seat.lower_wins);
        if let Some(game_facts) = &seat.game_facts {
            self.add_facts(game_facts, false)?;
        }
        if let Some(facts) = &seat.facts {
            self.add_facts(facts, true)?;
        }
        let record = Record {
            total: seat.total,
            played_at: seat.played_at,
            game_id: seat.game_id,
            seat: seat.seat,
        };
        self.keep_records(Some(record.clone()), Some(record));
        Ok(())
    }

    /// Adds another summary's seats to this one.
    pub(super) fn merge(&mut self, other: GameSummary) {
        self.plays += other.plays;
        self.results += other.results;
        self.total_sum += other.total_sum;
        self.lower_results += other.lower_results;
        for (key, (sum, count)) in other.facts {
            let entry = self.facts.entry(key).or_default();
            entry.0 += sum;
            entry.1 += count;
        }
        self.keep_records(other.lowest, other.highest);
    }

    pub(super) fn keep_records(&mut self, lowest: Option<Record>, highest: Option<Record>) {
        if let Some(this) = lowest
            && self.lowest.as_ref().is_none_or(|r| {
                this.total < r.total || (this.total == r.total && this.earlier_than(r))
            })
        {
            self.lowest = Some(this);
        }
        if let Some(this) = highest
            && self.highest.as_ref().is_none_or(|r| {
                this.total > r.total || (this.total == r.total && this.earlier_than(r))
            })
        {
            self.highest = Some(this);
        }
    }

    pub(super) fn add_facts(&mut self, object: &str, per_player: bool) -> Result<(), StoreError> {
        let facts: BTreeMap<String, i64> = serde_json::from_str(object)
            .map_err(|e| StoreError::Corrupt(format!("game facts: {e}")))?;
        for (key, value) in facts {
            let entry = self.facts.entry((key, per_player)).or_default();
            entry.0 += value;
            entry.1 += 1;
        }
        Ok(())
    }

    /// In every seat counted, the lowest total won (`None` without a finished game).
    pub(super) fn lower_wins(&self) -> Option<bool> {
        (self.results > 0).then_some(self.lower_results == self.results)
    }

    /// The facts by key, sorted.
    pub(super) fn facts(&self) -> Vec<FactTotal> {
        self.facts
            .iter()
            .map(|((key, per_player), (sum, count))| FactTotal {
                key: key.clone(),
                per_player: *per_player,
                sum: *sum,
                count: *count,
            })
            .collect()
    }

    /// The seats' (`per_player`) or the whole games' facts as a bucket stores them:
    /// `{"key": [sum, count]}`.
    pub(super) fn facts_json(&self, per_player: bool) -> String {
        let facts: BTreeMap<&str, (i64, i64)> = self
            .facts
            .iter()
            .filter(|((_, of_seat), _)| *of_seat == per_player)
            .map(|((key, _), sums)| (key.as_str(), *sums))
            .collect();
        serde_json::to_string(&facts).expect("a map of numbers is JSON")
    }

    pub(super) fn add_facts_json(
        &mut self,
        object: &str,
        per_player: bool,
    ) -> Result<(), StoreError> {
        let facts: BTreeMap<String, (i64, i64)> = serde_json::from_str(object)
            .map_err(|e| StoreError::Corrupt(format!("summed facts: {e}")))?;
        for (key, (sum, count)) in facts {
            let entry = self.facts.entry((key, per_player)).or_default();
            entry.0 += sum;
            entry.1 += count;
        }
        Ok(())
    }
}

/// one for the facts about the whole game (on the game's row).
pub(super) struct FactsBySeat {
    pub(super) seats: BTreeMap<i64, BTreeMap<String, i64>>,
    pub(super) whole_game: BTreeMap<String, i64>,
}

impl FactsBySeat {
    pub(super) fn new(game: &GameRecord, result: &GameResult) -> Result<Self, StoreError> {
        let mut facts = FactsBySeat {
            seats: BTreeMap::new(),
            whole_game: BTreeMap::new(),
        };
        for (player, key, value) in &result.facts {
            let object = match player {
                None => &mut facts.whole_game,
                Some(id) => {
                    let seat = game
                        .players
                        .iter()
                        .find(|s| &s.player_id == id)
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!(
                                "a fact names player {id}, who is not seated"
                            ))
                        })?;
                    facts.seats.entry(seat.seat).or_default()
                }
            };
            *object.entry(key.clone()).or_default() += value;
        }
        Ok(facts)
    }

    pub(super) fn json(object: &BTreeMap<String, i64>) -> Option<String> {
        (!object.is_empty())
            .then(|| serde_json::to_string(object).expect("a map of numbers is JSON"))
    }

    pub(super) fn of_seat(&self, seat: i64) -> Option<String> {
        self.seats.get(&seat).and_then(Self::json)
    }

    pub(super) fn whole_game(&self) -> Option<String> {
        Self::json(&self.whole_game)
    }
}
