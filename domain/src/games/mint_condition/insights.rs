//! What a club's Mint Condition games add up to: damage per card kind, and how often Be
//! Careful! or a tie-break decided the winner.

use serde_json::{Map, Value, json};

use super::Kind;
use crate::insights::{FactKey, FactSums, Insight, ratio};

/// The facts a finished game leaves (see `scoring::facts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A player's damage from one card kind over the game (stored only when not 0).
    Damage(Kind),
    /// 1 when the winners would differ without any Be Careful! damage.
    BeCarefulDecided,
    /// 1 when a tie for first was settled by the tie-break.
    TiebreakDecided,
}

impl FactKey for Key {
    fn key(&self) -> String {
        match self {
            Key::Damage(kind) => format!("damage:{}", kind.id()),
            Key::BeCarefulDecided => "be_careful_decided".into(),
            Key::TiebreakDecided => "tiebreak_decided".into(),
        }
    }

    fn parse(key: &str) -> Option<Self> {
        match key {
            "be_careful_decided" => Some(Key::BeCarefulDecided),
            "tiebreak_decided" => Some(Key::TiebreakDecided),
            _ => key
                .strip_prefix("damage:")
                .and_then(Kind::parse)
                .map(Key::Damage),
        }
    }
}

pub const INSIGHTS: &[Insight] = &[
    Insight {
        name: "average_damage_per_card_kind",
        meaning: "damage a player takes from each card kind in a game, on average",
    },
    Insight {
        name: "be_careful_decided",
        meaning: "games whose winners would differ without any Be Careful! damage",
    },
    Insight {
        name: "tiebreak_decided",
        meaning: "games whose tie for first the tie-break settled",
    },
];

pub fn insights(facts: &FactSums) -> Map<String, Value> {
    let damage: Map<String, Value> = facts
        .all::<Key>()
        .filter_map(|(key, sum)| match key {
            Key::Damage(kind) => Some((kind.id().to_owned(), json!(facts.per_result(sum.sum)))),
            _ => None,
        })
        .collect();
    let decided = facts.get(&Key::BeCarefulDecided).sum;
    let tiebreaks = facts.get(&Key::TiebreakDecided).sum;
    let mut insights = Map::new();
    insights.insert(INSIGHTS[0].name.into(), Value::Object(damage));
    insights.insert(
        INSIGHTS[1].name.into(),
        json!({"games": decided, "share": ratio(decided, facts.plays), "meaning": INSIGHTS[1].meaning}),
    );
    insights.insert(
        INSIGHTS[2].name.into(),
        json!({"games": tiebreaks, "share": ratio(tiebreaks, facts.plays)}),
    );
    insights
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_key_is_stored_in_the_games_words_and_reads_back() {
        for (key, text) in [
            (Key::Damage(Kind::FineWine), "damage:fine-wine"),
            (Key::Damage(Kind::SleeveMeUp), "damage:sleeve-me-up"),
            (Key::BeCarefulDecided, "be_careful_decided"),
            (Key::TiebreakDecided, "tiebreak_decided"),
        ] {
            assert_eq!(key.key(), text);
            assert_eq!(Key::parse(text), Some(key));
        }
        assert_eq!(Key::parse("damage:fine-whine"), None);
    }
}
