//! Mint Condition damage: Be Careful! (and Smoking Kills) first, then every card rule, per
//! round; Lucky at game end; lowest total wins (highest with Heavily Used).

use serde_json::{Value, json};

use super::cards::{Card, Kind};
use super::events::RoundCollected;
use super::insights::Key;
use super::state::State;
use super::{BeCarefulWhenNone, MemoriesOverThree, Options, ProtectedBeCareful, TiebreakScope};
use crate::message::{Arg, Message};
use crate::said;
use crate::score::{
    self, Adjustment, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak,
    said_names,
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
            detail = said!(
                "server.mint_condition.detail.more_protected",
                detail = detail,
                protected = protected
            );
        }
        lines.push(Line::new(
            said!(
                "server.mint_condition.line.kind",
                kind = Arg::word(kind.name()),
                n = n
            ),
            points,
            detail,
        ));
    }
    lines
}

/// The damage of `n` unprotected cards of one kind, with the arithmetic a player can check.
fn card_damage(kind: Kind, n: i64, options: &Options, cards: &[Card]) -> (i64, Message) {
    match kind {
        Kind::AnimalKingdom => (
            6 * (n / 3),
            said!("server.mint_condition.detail.animal_kingdom", sets = n / 3),
        ),
        Kind::Autographed => (
            5 * (n / 2),
            said!("server.mint_condition.detail.autographed", pairs = n / 2),
        ),
        Kind::FineWine => (
            2 * n,
            said!("server.mint_condition.detail.times", n = n, each = 2),
        ),
        Kind::HeavyRotation => {
            // rulebook: a cycle of 4 — 1, 3, 5, then the 4th card resets to 0.
            let points = [0, 1, 3, 5][(n % 4) as usize];
            (
                points,
                said!(
                    "server.mint_condition.detail.heavy_rotation",
                    n = n,
                    into = n % 4,
                    points = points
                ),
            )
        }
        Kind::LegacyEdition => (
            4 * n,
            said!("server.mint_condition.detail.times", n = n, each = 4),
        ),
        Kind::LostPieces => (
            3 * n,
            said!("server.mint_condition.detail.lost_pieces", n = n),
        ),
        Kind::Memories => memories_damage(n, options.memories_over_three),
        Kind::SnackFingers => (
            3 * (n - 1).max(0),
            said!(
                "server.mint_condition.detail.snack_fingers",
                rest = (n - 1).max(0)
            ),
        ),
        Kind::SleeveMeUp => {
            let protected: Vec<&str> = cards
                .iter()
                .filter(|c| c.protected)
                .map(|c| c.kind.name())
                .collect();
            let what = if protected.is_empty() {
                said!("server.mint_condition.detail.nothing")
            } else {
                said_names(&protected)
            };
            (
                0,
                said!(
                    "server.mint_condition.detail.sleeve_me_up",
                    protects = options.sleeve_protects,
                    what = what
                ),
            )
        }
        Kind::BeCareful | Kind::SmokingKills => (0, Message::default()),
    }
}

fn memories_damage(n: i64, over_three: MemoriesOverThree) -> (i64, Message) {
    match n {
        0 => (0, said!("server.mint_condition.detail.none")),
        1 | 2 => (7, said!("server.mint_condition.detail.memories", n = n)),
        3 => (0, said!("server.mint_condition.detail.memories_three")),
        _ => match over_three {
            MemoriesOverThree::Free => (
                0,
                said!("server.mint_condition.detail.memories_free", n = n),
            ),
            MemoriesOverThree::MultiplesOfThree if n % 3 == 0 => (
                0,
                said!("server.mint_condition.detail.memories_multiple", n = n),
            ),
            MemoriesOverThree::MultiplesOfThree => (
                7,
                said!("server.mint_condition.detail.memories_not_multiple", n = n),
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
    let label = said!("server.mint_condition.line.be_careful", n = mine);
    let (points, detail) = if most == 0 {
        let points = match options.be_careful_when_none {
            BeCarefulWhenNone::Five => BE_CAREFUL_NONE,
            BeCarefulWhenNone::Zero => 0,
        };
        let value = if points == 0 { "zero" } else { "five" };
        (
            points,
            said!(
                "server.mint_condition.detail.be_careful_nobody",
                value = Arg::word(value),
                points = points
            ),
        )
    } else if mine == most {
        let tied = counts.iter().filter(|c| **c == most).count();
        if tied > 1 {
            (
                0,
                said!(
                    "server.mint_condition.detail.be_careful_tied_most",
                    n = mine
                ),
            )
        } else {
            (
                0,
                said!("server.mint_condition.detail.be_careful_most", n = mine),
            )
        }
    } else if mine > 0 {
        (
            BE_CAREFUL_FEWER,
            said!(
                "server.mint_condition.detail.be_careful_fewer",
                n = mine,
                most = most,
                points = BE_CAREFUL_FEWER
            ),
        )
    } else {
        (
            BE_CAREFUL_NONE,
            said!(
                "server.mint_condition.detail.be_careful_none",
                points = BE_CAREFUL_NONE
            ),
        )
    };
    let protected = collections[seat]
        .iter()
        .filter(|c| c.kind == Kind::BeCareful && c.protected)
        .count();
    let detail = match (protected, options.protected_be_careful) {
        (0, _) => detail,
        (n, ProtectedBeCareful::Counts) => said!(
            "server.mint_condition.detail.be_careful_protected_counts",
            detail = detail,
            n = n
        ),
        (n, ProtectedBeCareful::Ignored) => said!(
            "server.mint_condition.detail.be_careful_protected_ignored",
            detail = detail,
            n = n
        ),
    };
    Line::new(label, points, detail)
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
                said!("server.mint_condition.line.smoking_kills", n = copies),
                points,
                said!(
                    "server.mint_condition.detail.smoking_kills_holder",
                    n = copies,
                    each = rule.holder
                ),
            ));
        } else {
            let points = copies * i64::from(rule.others);
            let holder = &state.players[other].name;
            lines.push(Line::new(
                said!(
                    "server.mint_condition.line.smoking_kills_held_by",
                    holder = holder,
                    n = copies
                ),
                points,
                said!(
                    "server.mint_condition.detail.smoking_kills_others",
                    n = copies,
                    each = rule.others
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
        .filter(|c| c.lucky_for.counts_for(seat))
        .count() as i64;
    let applied = lucky_cards.min(damage.max(0));
    let detail = if applied < lucky_cards {
        said!(
            "server.mint_condition.detail.lucky_capped",
            cards = lucky_cards,
            color = color,
            applied = applied
        )
    } else {
        said!(
            "server.mint_condition.detail.lucky",
            cards = lucky_cards,
            color = color
        )
    };
    Adjustment {
        label: said!("server.mint_condition.line.lucky"),
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
    let rule = match (options.heavily_used, options.tiebreak_scope) {
        (true, TiebreakScope::Game) => said!("server.mint_condition.tiebreak.fewest_game"),
        (true, TiebreakScope::LastRound) => {
            said!("server.mint_condition.tiebreak.fewest_last_round")
        }
        (false, TiebreakScope::Game) => said!("server.mint_condition.tiebreak.most_game"),
        (false, TiebreakScope::LastRound) => {
            said!("server.mint_condition.tiebreak.most_last_round")
        }
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
        said!("server.tiebreak.wins", name = winners[0])
    } else {
        said!(
            "server.tiebreak.still_tied_share",
            names = said_names(&winners)
        )
    };
    Some(Tiebreak {
        rule,
        detail: said!(
            "server.mint_condition.tiebreak.detail",
            names = said_names(&names),
            best = best,
            counts = counts.join(", "),
            outcome = outcome
        ),
    })
}

/// A house-rule point the scoreboard always lists: its option, how its value is read from the
/// options, and the note that explains it.
struct HouseRulePoint {
    option: &'static str,
    value: fn(&Options) -> Value,
    note: fn() -> Message,
}

/// A row of [`HOUSE_RULE_POINTS`]: the option's field, which gives its name and its value, and
/// its note's catalogue key.
macro_rules! point {
    ($option:ident, $note:literal) => {
        HouseRulePoint {
            option: stringify!($option),
            value: |options| json!(options.$option),
            note: || said!($note),
        }
    };
}

/// The house-rule points always listed, in the scoreboard's order. A point is at its default
/// when its value reads as the default options' does (each value's JSON names it alone).
#[rustfmt::skip]
const HOUSE_RULE_POINTS: [HouseRulePoint; 6] = [
    point!(be_careful_when_none, "server.mint_condition.house_rule.be_careful_when_none"),
    point!(memories_over_three,  "server.mint_condition.house_rule.memories_over_three"),
    point!(sleeve_protects,      "server.mint_condition.house_rule.sleeve_protects"),
    point!(protected_be_careful, "server.mint_condition.house_rule.protected_be_careful"),
    point!(smoking_kills,        "server.mint_condition.house_rule.smoking_kills"),
    point!(tiebreak_scope,       "server.mint_condition.house_rule.tiebreak_scope"),
];

/// The house-rule points in force (always listed), and `strict_counts` when switched off.
fn house_rules(options: &Options) -> Vec<HouseRule> {
    let defaults = Options::default();
    let mut rules: Vec<HouseRule> = HOUSE_RULE_POINTS
        .iter()
        .map(|point| {
            let value = (point.value)(options);
            HouseRule {
                option: point.option.into(),
                default: value == (point.value)(&defaults),
                value,
                note: (point.note)(),
            }
        })
        .collect();
    if !options.strict_counts {
        rules.push(HouseRule {
            option: "strict_counts".into(),
            value: json!(false),
            default: false,
            note: said!("server.mint_condition.house_rule.strict_counts"),
        });
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
