//! What a club's Mind Up! games add up to: points and cards under each score card value, the
//! bubbles, and how often each objective face is met.

use serde_json::{Map, Value, json};

use super::objectives::Face;
use crate::insights::{FactKey, FactSums, Insight, ratio};

/// The facts a finished game leaves, per player (see `scoring::facts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Points from the cards under the score card of this value (1–5), over the game.
    ColumnPoints(u8),
    /// Cards under the score card of this value, over the game.
    ColumnCards(u8),
    /// The bubbles of every card in the player's rows, over the game.
    Bubbles,
    /// 1 per round the face was active.
    ObjectiveSeen(Face),
    /// 1 per round the face scored for the player.
    ObjectiveHit(Face),
}

impl FactKey for Key {
    fn key(&self) -> String {
        match self {
            Key::ColumnPoints(v) => format!("column:{v}:points"),
            Key::ColumnCards(v) => format!("column:{v}:cards"),
            Key::Bubbles => "bubbles".into(),
            Key::ObjectiveSeen(face) => format!("objective:{}:seen", face.code()),
            Key::ObjectiveHit(face) => format!("objective:{}:hit", face.code()),
        }
    }

    fn parse(key: &str) -> Option<Self> {
        if key == "bubbles" {
            return Some(Key::Bubbles);
        }
        if let Some(rest) = key.strip_prefix("column:") {
            let (value, what) = rest.split_once(':')?;
            let value: u8 = value.parse().ok().filter(|v| (1..=5).contains(v))?;
            return match what {
                "points" => Some(Key::ColumnPoints(value)),
                "cards" => Some(Key::ColumnCards(value)),
                _ => None,
            };
        }
        let (face, what) = key.strip_prefix("objective:")?.split_once(':')?;
        let face = Face::parse(face)?;
        match what {
            "seen" => Some(Key::ObjectiveSeen(face)),
            "hit" => Some(Key::ObjectiveHit(face)),
            _ => None,
        }
    }
}

pub const INSIGHTS: &[Insight] = &[
    Insight {
        name: "column_values",
        meaning: "per score card value 1–5: points and cards under it per player and game",
    },
    Insight {
        name: "average_bubbles_per_game",
        meaning: "the bubbles a player's rows add up to in a game, on average",
    },
    Insight {
        name: "objective_hit_rates",
        meaning: "per objective face: how often a player met it when it was active",
    },
];

pub fn insights(facts: &FactSums) -> Map<String, Value> {
    let columns: Map<String, Value> = (1..=5u8)
        .map(|v| {
            let points = facts.get(&Key::ColumnPoints(v)).sum;
            let cards = facts.get(&Key::ColumnCards(v)).sum;
            (
                v.to_string(),
                json!({"average_points_per_game": facts.per_result(points),
                       "average_cards_per_game": facts.per_result(cards)}),
            )
        })
        .collect();
    let rates: Map<String, Value> = facts
        .all::<Key>()
        .filter_map(|(key, seen)| match key {
            Key::ObjectiveSeen(face) => {
                let hits = facts.get(&Key::ObjectiveHit(face)).sum;
                Some((
                    face.code().to_owned(),
                    json!({"hit_rate": ratio(hits, seen.sum), "hits": hits, "chances": seen.sum}),
                ))
            }
            _ => None,
        })
        .collect();
    let mut insights = Map::new();
    insights.insert(INSIGHTS[0].name.into(), Value::Object(columns));
    insights.insert(
        INSIGHTS[1].name.into(),
        json!(facts.per_result(facts.get(&Key::Bubbles).sum)),
    );
    insights.insert(INSIGHTS[2].name.into(), Value::Object(rates));
    insights
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_key_is_stored_in_the_games_words_and_reads_back() {
        for (key, text) in [
            (Key::ColumnPoints(3), "column:3:points"),
            (Key::ColumnCards(5), "column:5:cards"),
            (Key::Bubbles, "bubbles"),
            (Key::ObjectiveSeen(Face::A1), "objective:A1:seen"),
            (Key::ObjectiveHit(Face::G2), "objective:G2:hit"),
        ] {
            assert_eq!(key.key(), text);
            assert_eq!(Key::parse(text), Some(key));
        }
        for other in ["column:6:cards", "column:1:bubbles", "objective:H1:hit"] {
            assert_eq!(Key::parse(other), None, "{other}");
        }
    }
}
