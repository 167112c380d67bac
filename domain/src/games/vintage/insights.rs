//! What a club's Vintage games add up to: the value and size of a collection, and the prizes.

use serde_json::{Map, Value, json};

use crate::insights::{FactKey, FactSums, Insight};

/// The facts a finished game leaves, per player (see `scoring::facts`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// The sum of the collection's card values.
    CollectionValue,
    /// The cards in the collection.
    CollectionCards,
    /// The points a prize gave the player (stored only when above 0). Prizes are the table's
    /// own, named by their id in the game's options.
    Prize(String),
}

impl FactKey for Key {
    fn key(&self) -> String {
        match self {
            Key::CollectionValue => "collection_value".into(),
            Key::CollectionCards => "collection_cards".into(),
            Key::Prize(id) => format!("prize:{id}"),
        }
    }

    fn parse(key: &str) -> Option<Self> {
        match key {
            "collection_value" => Some(Key::CollectionValue),
            "collection_cards" => Some(Key::CollectionCards),
            _ => key
                .strip_prefix("prize:")
                .map(|id| Key::Prize(id.to_owned())),
        }
    }
}

pub const INSIGHTS: &[Insight] = &[
    Insight {
        name: "average_collection_value",
        meaning: "the card values of a player's collection at game end, on average",
    },
    Insight {
        name: "average_collection_cards",
        meaning: "the cards in a player's collection at game end, on average",
    },
    Insight {
        name: "prizes",
        meaning: "per prize: how often a player scored it and the points it gave",
    },
];

pub fn insights(facts: &FactSums) -> Map<String, Value> {
    let prizes: Map<String, Value> = facts
        .all::<Key>()
        .filter_map(|(key, won)| match key {
            Key::Prize(id) => Some((id, json!({"times_scored": won.count, "points": won.sum}))),
            _ => None,
        })
        .collect();
    let mut insights = Map::new();
    insights.insert(
        INSIGHTS[0].name.into(),
        json!(facts.per_result(facts.get(&Key::CollectionValue).sum)),
    );
    insights.insert(
        INSIGHTS[1].name.into(),
        json!(facts.per_result(facts.get(&Key::CollectionCards).sum)),
    );
    insights.insert(INSIGHTS[2].name.into(), Value::Object(prizes));
    insights
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_key_is_stored_in_the_games_words_and_reads_back() {
        for (key, text) in [
            (Key::CollectionValue, "collection_value"),
            (Key::CollectionCards, "collection_cards"),
            (Key::Prize("lamps".into()), "prize:lamps"),
        ] {
            assert_eq!(key.key(), text);
            assert_eq!(Key::parse(text), Some(key));
        }
        assert_eq!(Key::parse("collection"), None);
    }
}
