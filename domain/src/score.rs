//! A score is data with its explanation: every point a player has comes from a line here.

use serde::Serialize;
use serde_json::Value;

use crate::insights::FactKey;
use crate::message::Message;

/// The scoreboard of one game after replaying its log (or a prefix of it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scoreboard {
    /// True when the lowest total wins (Mint Condition's damage).
    pub lower_wins: bool,
    /// Best rank first; equal ranks keep seat order.
    pub players: Vec<PlayerScore>,
    /// Everyone ranked first once the game is finished: more than one name is a shared win.
    /// Empty while the game is in progress and when it was abandoned (see [`crate::log`]).
    pub winners: Vec<String>,
    /// While the game is in progress: everyone ranked first so far (empty before the first
    /// scored round or move, and once the game is finished or abandoned).
    pub leaders: Vec<String>,
    /// How a tie for first place was settled, or `None` when there was no tie for first.
    pub tiebreak: Option<Tiebreak>,
    /// Options that decide a point the published rules leave open, or that differ from them.
    pub house_rules: Vec<HouseRule>,
    /// Game-specific state a client may want to draw (e.g. the race in Mint Julep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerScore {
    pub name: String,
    pub seat: u32,
    /// Sum of every round's points and every adjustment.
    pub total: i64,
    pub rank: u32,
    pub rounds: Vec<RoundScore>,
    pub adjustments: Vec<Adjustment>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundScore {
    pub round: u32,
    /// Sum of this round's breakdown lines.
    pub points: i64,
    pub breakdown: Vec<Line>,
}

/// One explained amount: "Fine Wine ×3" → 6, "2 × 3 = 6".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    pub label: Message,
    pub points: i64,
    pub detail: Message,
}

/// A game-level change to a total after the rounds (e.g. the Lucky deduction).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Adjustment {
    pub label: Message,
    pub points: i64,
    pub detail: Message,
}

/// A number a club statistic is built from: about one player (by name) or the whole game.
/// Keys are the game's own words: `damage:fine-wine`, `objective:A1:hit`, `bet:you-got-me`,
/// written only through a game's typed [`FactKey`] so its insights read them back the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub player: Option<String>,
    pub key: String,
    pub value: i64,
}

impl Fact {
    pub fn player(name: &str, key: &impl FactKey, value: i64) -> Self {
        Self {
            player: Some(name.to_owned()),
            key: key.key(),
            value,
        }
    }

    pub fn game(key: &impl FactKey, value: i64) -> Self {
        Self {
            player: None,
            key: key.key(),
            value,
        }
    }
}

/// Facts as stored, key spelt out: the tests pin the stored text the typed keys write.
#[cfg(test)]
impl Fact {
    pub(crate) fn stored_player(name: &str, key: impl Into<String>, value: i64) -> Self {
        Self {
            player: Some(name.to_owned()),
            key: key.into(),
            value,
        }
    }

    pub(crate) fn stored_game(key: impl Into<String>, value: i64) -> Self {
        Self {
            player: None,
            key: key.into(),
            value,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tiebreak {
    pub rule: Message,
    pub detail: Message,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HouseRule {
    pub option: String,
    pub value: Value,
    /// True when this is the service's default for a point the rules leave open.
    pub default: bool,
    pub note: Message,
}

impl Line {
    pub fn new(label: impl Into<Message>, points: i64, detail: impl Into<Message>) -> Self {
        Self {
            label: label.into(),
            points,
            detail: detail.into(),
        }
    }
}

impl RoundScore {
    pub fn new(round: u32, breakdown: Vec<Line>) -> Self {
        let points = breakdown.iter().map(|l| l.points).sum();
        Self {
            round,
            points,
            breakdown,
        }
    }
}

impl PlayerScore {
    /// A player's score from their rounds and adjustments; the total is their sum, so every
    /// point is explained by construction. Rank is filled in by [`rank`].
    pub fn new(
        name: &str,
        seat: u32,
        rounds: Vec<RoundScore>,
        adjustments: Vec<Adjustment>,
    ) -> Self {
        let total = rounds.iter().map(|r| r.points).sum::<i64>()
            + adjustments.iter().map(|a| a.points).sum::<i64>();
        Self {
            name: name.to_owned(),
            seat,
            total,
            rank: 0,
            rounds,
            adjustments,
        }
    }
}

/// Standard competition ranking ("1, 2, 2, 4") by a key where **greater is better**:
/// each player's rank is one plus the number of players strictly better. Players come back
/// sorted best first, ties in seat order. Returns the keys in the same order.
pub fn rank<K: Ord + Clone>(players: &mut [PlayerScore], key: impl Fn(&PlayerScore) -> K) {
    let keys: Vec<K> = players.iter().map(&key).collect();
    for (i, player) in players.iter_mut().enumerate() {
        player.rank = 1 + keys.iter().filter(|k| **k > keys[i]).count() as u32;
    }
    players.sort_by(|a, b| a.rank.cmp(&b.rank).then(a.seat.cmp(&b.seat)));
}

/// The largest number of points one thing may be worth — a typed-in total, a card's value, a
/// prize, a house rule's damage — either way. Far above any real game, it keeps every sum a
/// club's statistics make within range.
pub const POINTS_LIMIT: i64 = 1_000_000;

/// Refuses `points` beyond [`POINTS_LIMIT`], naming `what` at `pointer`.
pub fn within_limit(
    points: i64,
    pointer: impl Into<String>,
    what: Message,
) -> Result<(), crate::RuleError> {
    if (-POINTS_LIMIT..=POINTS_LIMIT).contains(&points) {
        Ok(())
    } else {
        Err(crate::RuleError::said(
            pointer,
            crate::said!(
                "server.common.refusal.must_between_not",
                what = what,
                points_limit = POINTS_LIMIT,
                points = points
            ),
        ))
    }
}

/// The names ranked first.
pub fn winners(players: &[PlayerScore]) -> Vec<String> {
    players
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| p.name.clone())
        .collect()
}

/// Names joined for a sentence in any language: "Ann", "Ann and Bo", "Ann, Bo and Cy".
pub fn said_names<S: AsRef<str>>(names: &[S]) -> Message {
    said_list(
        names
            .iter()
            .map(|name| Message::data(name.as_ref().to_owned())),
    )
}

/// Things said joined for a sentence in their language: "a", "a and b", "a, b and c" (each
/// comma and the "and" from the catalogues: Persian writes "،" and "و").
pub fn said_list(items: impl IntoIterator<Item = Message>) -> Message {
    let mut items: Vec<Message> = items.into_iter().collect();
    let Some(last) = items.pop() else {
        return Message::default();
    };
    if items.is_empty() {
        return last;
    }
    crate::said!("server.list.and", first = said_commas(items), last = last)
}

/// Things said one after another with commas only: "Ann 6, Bo 1".
pub fn said_commas(items: impl IntoIterator<Item = Message>) -> Message {
    let mut items = items.into_iter();
    let first = items.next().unwrap_or_default();
    items.fold(first, |listed, next| {
        crate::said!("server.list.pair", first = listed, next = next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(name: &str, seat: u32, points: i64) -> PlayerScore {
        PlayerScore::new(
            name,
            seat,
            vec![RoundScore::new(1, vec![Line::new("x", points, "")])],
            vec![],
        )
    }

    #[test]
    fn ties_share_a_rank_and_the_next_rank_is_skipped() {
        let mut players = vec![
            player("Ann", 1, 5),
            player("Bo", 2, 9),
            player("Cy", 3, 9),
            player("Di", 4, 1),
        ];
        rank(&mut players, |p| p.total);
        let order: Vec<(&str, u32)> = players.iter().map(|p| (p.name.as_str(), p.rank)).collect();
        assert_eq!(order, vec![("Bo", 1), ("Cy", 1), ("Ann", 3), ("Di", 4)]);
        assert_eq!(winners(&players), vec!["Bo", "Cy"]);
    }

    #[test]
    fn a_total_is_the_sum_of_rounds_and_adjustments() {
        let p = PlayerScore::new(
            "Ann",
            1,
            vec![RoundScore::new(
                1,
                vec![Line::new("a", 4, ""), Line::new("b", 3, "")],
            )],
            vec![Adjustment {
                label: "Lucky".into(),
                points: -2,
                detail: Message::default(),
            }],
        );
        assert_eq!(p.rounds[0].points, 7);
        assert_eq!(p.total, 5);
    }

    #[test]
    fn names_are_listed_as_a_sentence() {
        assert_eq!(said_names(&["Ann"]), "Ann");
        assert_eq!(said_names(&["Ann", "Bo"]), "Ann and Bo");
        assert_eq!(said_names(&["Ann", "Bo", "Cy"]), "Ann, Bo and Cy");
    }
}
