//! Mint Condition damage: Be Careful! (and Smoking Kills) first, then every card rule, per
//! round; Lucky at game end; lowest total wins (highest with Heavily Used).

use serde_json::json;

use super::cards::{Card, Kind};
use super::events::RoundCollected;
use super::insights::Key;
use super::state::State;
use super::{BeCarefulWhenNone, MemoriesOverThree, Options, ProtectedBeCareful, TiebreakScope};
use crate::score::{
    self, Adjustment, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak,
    list_names,
};

/// Be Careful! damage for a player who holds some, but fewer than the most.
const BE_CAREFUL_FEWER: i64 = 3;
/// Be Careful! damage for a player who holds none.
const BE_CAREFUL_NONE: i64 = 5;

pub fn score(state: &State) -> Scoreboard {
    let options = &state.options;
    let mut players: Vec<PlayerScore> = state
        .players
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            let rounds: Vec<RoundScore> = state
                .rounds
                .iter()
                .map(|round| RoundScore::new(round.round, round_lines(state, round, seat)))
                .collect();
            let damage: i64 = rounds.iter().map(|r| r.points).sum();
            let adjustments = match (options.lucky, player.color.as_deref()) {
                (true, Some(color)) => vec![lucky_deduction(&state.rounds, seat, color, damage)],
                _ => Vec::new(),
            };
            PlayerScore::new(&player.name, player.seat, rounds, adjustments)
        })
        .collect();

    let tiebreak_cards: Vec<i64> = (0..state.players.len())
        .map(|seat| tiebreak_be_careful(state, seat))
        .collect();
    let cards_of = |p: &PlayerScore| tiebreak_cards[p.seat as usize - 1];
    if options.heavily_used {
        // Highest damage wins; tie → fewest Be Careful!.
        score::rank(&mut players, |p| (p.total, -cards_of(p)));
    } else {
        // Lowest damage wins; tie → most Be Careful!.
        score::rank(&mut players, |p| (-p.total, cards_of(p)));
    }
    let tiebreak = explain_tiebreak(&players, options, &cards_of);
    Scoreboard {
        lower_wins: options.lower_wins(),
        winners: score::winners(&players),
        leaders: Vec::new(),
        players,
        tiebreak,
        house_rules: house_rules(options),
        details: None,
    }
}

/// Cards that deal damage and count for sets: protected ones do not [H].
fn unprotected(cards: &[Card], kind: Kind) -> i64 {
    cards
        .iter()
        .filter(|c| c.kind == kind && !c.protected)
        .count() as i64
}

/// Be Careful! cards that count toward the round's majority: a protected one too, unless the
/// house rule `protected_be_careful` is "ignored".
fn majority_be_careful(cards: &[Card], options: &Options) -> i64 {
    match options.protected_be_careful {
        ProtectedBeCareful::Counts => {
            cards.iter().filter(|c| c.kind == Kind::BeCareful).count() as i64
        }
        ProtectedBeCareful::Ignored => unprotected(cards, Kind::BeCareful),
    }
}

fn round_lines(state: &State, round: &RoundCollected, seat: usize) -> Vec<Line> {
    let mut lines = vec![be_careful_line(&state.options, &round.collections, seat)];
    lines.extend(smoking_kills_lines(state, round, seat));
    let cards = &round.collections[seat];
    for kind in Kind::ALL {
        if matches!(kind, Kind::BeCareful | Kind::SmokingKills) {
            continue;
        }
        let n = unprotected(cards, kind);
        let protected = cards
            .iter()
            .filter(|c| c.kind == kind && c.protected)
            .count();
        if n == 0 && (protected == 0 || kind == Kind::SleeveMeUp) {
            continue;
        }
        let (points, mut detail) = card_damage(kind, n, &state.options, cards);
        if protected > 0 {
            detail.push_str(&format!(" ({protected} more protected by Sleeve Me Up!)"));
        }
        lines.push(Line::new(format!("{} ×{n}", kind.name()), points, detail));
    }
    lines
}

/// The damage of `n` unprotected cards of one kind, with the arithmetic a player can check.
fn card_damage(kind: Kind, n: i64, options: &Options, cards: &[Card]) -> (i64, String) {
    match kind {
        Kind::AnimalKingdom => (6 * (n / 3), format!("{} complete set(s) of 3 × 6", n / 3)),
        Kind::Autographed => (5 * (n / 2), format!("{} complete pair(s) × 5", n / 2)),
        Kind::FineWine => (2 * n, format!("{n} × 2")),
        Kind::HeavyRotation => {
            // rulebook: a cycle of 4 — 1, 3, 5, then the 4th card resets to 0.
            let points = [0, 1, 3, 5][(n % 4) as usize];
            (
                points,
                format!("{n} in a cycle of 4 ({} into the cycle) → {points}", n % 4),
            )
        }
        Kind::LegacyEdition => (4 * n, format!("{n} × 4")),
        Kind::LostPieces => (3 * n, format!("{n} × 3 still in the collection")),
        Kind::Memories => memories_damage(n, options.memories_over_three),
        Kind::SnackFingers => (
            3 * (n - 1).max(0),
            format!("first one free, then {} × 3", (n - 1).max(0)),
        ),
        Kind::SleeveMeUp => {
            let protected: Vec<&str> = cards
                .iter()
                .filter(|c| c.protected)
                .map(|c| c.kind.name())
                .collect();
            let what = if protected.is_empty() {
                "nothing".to_owned()
            } else {
                list_names(&protected)
            };
            (
                0,
                format!(
                    "no damage itself; protects up to {} card(s) each: {what}",
                    options.sleeve_protects
                ),
            )
        }
        Kind::BeCareful | Kind::SmokingKills => (0, String::new()),
    }
}

fn memories_damage(n: i64, over_three: MemoriesOverThree) -> (i64, String) {
    match n {
        0 => (0, "none".into()),
        1 | 2 => (7, format!("{n} Memories → 7")),
        3 => (0, "exactly 3 Memories → 0".into()),
        _ => match over_three {
            MemoriesOverThree::Free => (
                0,
                format!("{n} Memories → 0 (house rule memories_over_three: free)"),
            ),
            MemoriesOverThree::MultiplesOfThree if n % 3 == 0 => (
                0,
                format!(
                    "{n} Memories, a multiple of 3 → 0 (house rule memories_over_three: multiples_of_three)"
                ),
            ),
            MemoriesOverThree::MultiplesOfThree => (
                7,
                format!(
                    "{n} Memories, not a multiple of 3 → 7 (house rule memories_over_three: multiples_of_three)"
                ),
            ),
        },
    }
}

/// rulebook: the most Be Careful! take 0 (ties too), others holding some take 3, none take 5.
fn be_careful_line(options: &Options, collections: &[Vec<Card>], seat: usize) -> Line {
    let counts: Vec<i64> = collections
        .iter()
        .map(|c| majority_be_careful(c, options))
        .collect();
    let most = counts.iter().copied().max().unwrap_or(0);
    let mine = counts[seat];
    let label = format!("Be Careful! ×{mine}");
    let (points, detail) = if most == 0 {
        let points = match options.be_careful_when_none {
            BeCarefulWhenNone::Five => BE_CAREFUL_NONE,
            BeCarefulWhenNone::Zero => 0,
        };
        let value = if points == 0 { "zero" } else { "five" };
        (
            points,
            format!(
                "nobody holds Be Careful! (house rule be_careful_when_none: {value}) → {points}"
            ),
        )
    } else if mine == most {
        let tied = counts.iter().filter(|c| **c == most).count();
        if tied > 1 {
            (0, format!("{mine}, tied for the most → 0"))
        } else {
            (0, format!("{mine}, the most → 0"))
        }
    } else if mine > 0 {
        (
            BE_CAREFUL_FEWER,
            format!("{mine}, fewer than the most ({most}) → {BE_CAREFUL_FEWER}"),
        )
    } else {
        (
            BE_CAREFUL_NONE,
            format!("none, while others hold some → {BE_CAREFUL_NONE}"),
        )
    };
    let protected = collections[seat]
        .iter()
        .filter(|c| c.kind == Kind::BeCareful && c.protected)
        .count();
    let note = match (protected, options.protected_be_careful) {
        (0, _) => String::new(),
        (n, ProtectedBeCareful::Counts) => format!(
            " ({n} of them protected by Sleeve Me Up!, still counted: \
             house rule protected_be_careful: counts)"
        ),
        (n, ProtectedBeCareful::Ignored) => format!(
            " ({n} more protected by Sleeve Me Up!, not counted: \
             house rule protected_be_careful: ignored)"
        ),
    };
    Line::new(label, points, detail + &note)
}

/// [H] Per copy held: its holder takes `holder`, every other player takes `others`.
fn smoking_kills_lines(state: &State, round: &RoundCollected, seat: usize) -> Vec<Line> {
    let Some(rule) = state.options.smoking_kills else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for (other, cards) in round.collections.iter().enumerate() {
        let copies = unprotected(cards, Kind::SmokingKills);
        if copies == 0 {
            continue;
        }
        if other == seat {
            let points = copies * i64::from(rule.holder);
            lines.push(Line::new(
                format!("Smoking Kills ×{copies}"),
                points,
                format!(
                    "{copies} × {} (house rule smoking_kills, holder)",
                    rule.holder
                ),
            ));
        } else {
            let points = copies * i64::from(rule.others);
            let holder = &state.players[other].name;
            lines.push(Line::new(
                format!("Smoking Kills held by {holder} ×{copies}"),
                points,
                format!(
                    "{copies} × {} (house rule smoking_kills, others)",
                    rule.others
                ),
            ));
        }
    }
    lines
}

/// Lucky: −1 per card of the whole game showing the player's colour or rainbow; a total never
/// drops below 0, so the deduction is capped at the damage taken.
fn lucky_deduction(rounds: &[RoundCollected], seat: usize, color: &str, damage: i64) -> Adjustment {
    let lucky_cards = rounds
        .iter()
        .flat_map(|r| r.collections[seat].iter())
        .filter(|c| {
            c.symbol
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case(color) || s.eq_ignore_ascii_case("rainbow"))
        })
        .count() as i64;
    let applied = lucky_cards.min(damage.max(0));
    let mut detail = format!("{lucky_cards} card(s) showing {color} or rainbow → −{lucky_cards}");
    if applied < lucky_cards {
        detail.push_str(&format!(
            ", capped at −{applied}: a total cannot drop below 0"
        ));
    }
    Adjustment {
        label: "Lucky".into(),
        points: -applied,
        detail,
    }
}

/// Be Careful! cards that break a tie: the whole game or only the last round [H]. Every
/// collected Be Careful! counts here, protected or not: the rule says "cards", not "majority".
fn tiebreak_be_careful(state: &State, seat: usize) -> i64 {
    let rounds: &[RoundCollected] = match state.options.tiebreak_scope {
        TiebreakScope::Game => &state.rounds,
        TiebreakScope::LastRound => state.rounds.last().map(std::slice::from_ref).unwrap_or(&[]),
    };
    rounds
        .iter()
        .flat_map(|r| r.collections[seat].iter())
        .filter(|c| c.kind == Kind::BeCareful)
        .count() as i64
}

fn explain_tiebreak(
    players: &[PlayerScore],
    options: &Options,
    cards_of: &dyn Fn(&PlayerScore) -> i64,
) -> Option<Tiebreak> {
    let best = players.first()?.total;
    let tied: Vec<&PlayerScore> = players.iter().filter(|p| p.total == best).collect();
    if tied.len() < 2 {
        return None;
    }
    let scope = match options.tiebreak_scope {
        TiebreakScope::Game => "over the whole game",
        TiebreakScope::LastRound => "in the last round",
    };
    let rule = if options.heavily_used {
        format!("fewest Be Careful! cards {scope}")
    } else {
        format!("most Be Careful! cards {scope}")
    };
    let names: Vec<&str> = tied.iter().map(|p| p.name.as_str()).collect();
    let counts: Vec<String> = tied
        .iter()
        .map(|p| format!("{} {}", p.name, cards_of(p)))
        .collect();
    let winners: Vec<&str> = tied
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| p.name.as_str())
        .collect();
    let outcome = if winners.len() == 1 {
        format!("{} wins", winners[0])
    } else {
        format!("still tied: {} share the win", list_names(&winners))
    };
    Some(Tiebreak {
        rule,
        detail: format!(
            "{} tied on {best} damage; Be Careful! cards: {} → {outcome}",
            list_names(&names),
            counts.join(", ")
        ),
    })
}

/// The house-rule points in force (always listed), and `strict_counts` when switched off.
fn house_rules(options: &Options) -> Vec<HouseRule> {
    let defaults = Options::default();
    let entry = |option: &str, value: serde_json::Value, default: bool, note: &str| HouseRule {
        option: option.into(),
        value,
        default,
        note: note.into(),
    };
    let mut rules = vec![
        entry(
            "be_careful_when_none",
            json!(options.be_careful_when_none),
            options.be_careful_when_none == defaults.be_careful_when_none,
            "Be Careful! damage for everyone when nobody holds one",
        ),
        entry(
            "memories_over_three",
            json!(options.memories_over_three),
            options.memories_over_three == defaults.memories_over_three,
            "Memories damage for 4 or more",
        ),
        entry(
            "sleeve_protects",
            json!(options.sleeve_protects),
            options.sleeve_protects == defaults.sleeve_protects,
            "cards one Sleeve Me Up! protects",
        ),
        entry(
            "protected_be_careful",
            json!(options.protected_be_careful),
            options.protected_be_careful == defaults.protected_be_careful,
            "whether a Be Careful! protected by Sleeve Me Up! counts toward the majority",
        ),
        entry(
            "smoking_kills",
            json!(options.smoking_kills),
            options.smoking_kills == defaults.smoking_kills,
            "Smoking Kills damage per copy (null: the card is refused)",
        ),
        entry(
            "tiebreak_scope",
            json!(options.tiebreak_scope),
            options.tiebreak_scope == defaults.tiebreak_scope,
            "which Be Careful! cards break a tie",
        ),
    ];
    if !options.strict_counts {
        rules.push(entry(
            "strict_counts",
            json!(false),
            false,
            "round collections of any size are accepted",
        ));
    }
    rules
}

/// Statistics: damage per card kind per player, and whether Be Careful! decided the winner
/// (the winners would differ if nobody took Be Careful! damage) or a tie-break did.
pub fn facts(state: &State) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut be_careful = vec![0i64; state.players.len()];
    for (seat, player) in state.players.iter().enumerate() {
        let mut damage = [0i64; Kind::ALL.len()];
        for round in &state.rounds {
            let cards = &round.collections[seat];
            damage[Kind::BeCareful as usize] +=
                be_careful_line(&state.options, &round.collections, seat).points;
            damage[Kind::SmokingKills as usize] += smoking_kills_lines(state, round, seat)
                .iter()
                .map(|l| l.points)
                .sum::<i64>();
            for kind in Kind::ALL {
                if !matches!(kind, Kind::BeCareful | Kind::SmokingKills) {
                    damage[kind as usize] +=
                        card_damage(kind, unprotected(cards, kind), &state.options, cards).0;
                }
            }
        }
        be_careful[seat] = damage[Kind::BeCareful as usize];
        for kind in Kind::ALL {
            if damage[kind as usize] != 0 {
                facts.push(Fact::player(
                    &player.name,
                    &Key::Damage(kind),
                    damage[kind as usize],
                ));
            }
        }
    }
    let board = score(state);
    let winners = board.winners.clone();
    // The same ranking with every Be Careful! line removed.
    let mut without: Vec<PlayerScore> = board.players.clone();
    for p in &mut without {
        p.total -= be_careful[p.seat as usize - 1];
    }
    let tiebreak_cards: Vec<i64> = (0..state.players.len())
        .map(|seat| tiebreak_be_careful(state, seat))
        .collect();
    let cards_of = |p: &PlayerScore| tiebreak_cards[p.seat as usize - 1];
    if state.options.heavily_used {
        score::rank(&mut without, |p| (p.total, -cards_of(p)));
    } else {
        score::rank(&mut without, |p| (-p.total, cards_of(p)));
    }
    let mut before = score::winners(&without);
    before.sort();
    let mut after = winners.clone();
    after.sort();
    facts.push(Fact::game(
        &Key::BeCarefulDecided,
        i64::from(before != after),
    ));
    facts.push(Fact::game(
        &Key::TiebreakDecided,
        i64::from(board.tiebreak.is_some() && winners.len() == 1),
    ));
    facts
}
