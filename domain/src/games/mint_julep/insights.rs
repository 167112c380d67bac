//! What a club's Mint Julep games add up to: how each horse's backers fare, and what late bets
//! cost.

use serde_json::{Map, Value, json};

use super::horses::Horse;
use crate::insights::{FactKey, FactSums, Insight, ratio};

/// The facts a finished game leaves (see `scoring::facts`): per player and active bet at game
/// end, and for the game the horse placed first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// 1 per active bet on the horse.
    Bet(Horse),
    /// 1 per active bet on the horse whose player won the game.
    BetWon(Horse),
    /// The points the bet gave.
    BetPoints(Horse),
    /// The late penalty of the bet (0 for a round-1 bet).
    LatePenalty,
    /// 1 per bet with a late penalty above 0.
    LateBets,
    /// 1 for the horse placed first (a fact about the whole game).
    WinningHorse(Horse),
}

impl FactKey for Key {
    fn key(&self) -> String {
        match self {
            Key::Bet(h) => format!("bet:{}", h.id()),
            Key::BetWon(h) => format!("bet_won:{}", h.id()),
            Key::BetPoints(h) => format!("bet_points:{}", h.id()),
            Key::LatePenalty => "late_penalty".into(),
            Key::LateBets => "late_bets".into(),
            Key::WinningHorse(h) => format!("winning_horse:{}", h.id()),
        }
    }

    fn parse(key: &str) -> Option<Self> {
        match key {
            "late_penalty" => return Some(Key::LatePenalty),
            "late_bets" => return Some(Key::LateBets),
            _ => {}
        }
        let (kind, horse) = key.split_once(':')?;
        let horse = Horse::parse(horse)?;
        match kind {
            "bet" => Some(Key::Bet(horse)),
            "bet_won" => Some(Key::BetWon(horse)),
            "bet_points" => Some(Key::BetPoints(horse)),
            "winning_horse" => Some(Key::WinningHorse(horse)),
            _ => None,
        }
    }
}

pub const INSIGHTS: &[Insight] = &[
    Insight {
        name: "horses",
        meaning: "per horse bet on: bets, how often its backer won the game, its average points and the races it won",
    },
    Insight {
        name: "late_bets",
        meaning: "bets placed after round 1 and the penalty they cost",
    },
];

pub fn insights(facts: &FactSums) -> Map<String, Value> {
    let horses: Map<String, Value> = facts
        .all::<Key>()
        .filter_map(|(key, bets)| match key {
            Key::Bet(horse) => {
                let won = facts.get(&Key::BetWon(horse)).sum;
                let points = facts.get(&Key::BetPoints(horse)).sum;
                Some((
                    horse.id().to_owned(),
                    json!({"bets": bets.sum, "bettor_won": won, "win_rate": ratio(won, bets.sum),
                           "average_points": ratio(points, bets.sum),
                           "races_won": facts.get(&Key::WinningHorse(horse)).sum}),
                ))
            }
            _ => None,
        })
        .collect();
    let late = facts.get(&Key::LateBets).sum;
    let penalty = facts.get(&Key::LatePenalty).sum;
    let mut insights = Map::new();
    insights.insert(INSIGHTS[0].name.into(), Value::Object(horses));
    insights.insert(
        INSIGHTS[1].name.into(),
        json!({"bets": late, "total_penalty": penalty, "average_penalty": ratio(penalty, late)}),
    );
    insights
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_key_is_stored_in_the_games_words_and_reads_back() {
        for (key, text) in [
            (Key::Bet(Horse::YouGotMe), "bet:you-got-me"),
            (Key::BetWon(Horse::MapleSplendor), "bet_won:maple-splendor"),
            (
                Key::BetPoints(Horse::NewtonsApple),
                "bet_points:newtons-apple",
            ),
            (Key::LatePenalty, "late_penalty"),
            (Key::LateBets, "late_bets"),
            (
                Key::WinningHorse(Horse::AlaskanJustice),
                "winning_horse:alaskan-justice",
            ),
        ] {
            assert_eq!(key.key(), text);
            assert_eq!(Key::parse(text), Some(key));
        }
        assert_eq!(Key::parse("bet:seabiscuit"), None);
    }
}
