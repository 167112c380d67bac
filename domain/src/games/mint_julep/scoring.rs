//! Mint Julep scores: per active bet, starting bonus + place points − late penalty, shared
//! between the backers of one horse (3–4 players); highest total wins, ties are shared.

use serde_json::json;

use super::horses::{Horse, place_points};
use super::insights::Key;
use super::state::{Bet, RoundRace, State};
use super::{Options, Split};
use crate::message::{Arg, Message};
use crate::said;
use crate::score::{
    self, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak, said_names,
};

/// rules: a bet placed in round 1 pays nothing, round 2 pays 1, round 3 pays 2.
pub fn late_penalty(round: u32) -> i64 {
    i64::from(round) - 1
}

pub fn score(state: &State) -> Scoreboard {
    let mut players: Vec<PlayerScore> = state
        .players
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            let mut rounds: Vec<RoundScore> = Vec::new();
            for round in 1..=state.round {
                // Each bet's line sits under the round it was placed in.
                let lines: Vec<Line> = state
                    .bets
                    .iter()
                    .filter(|b| b.player == seat && b.round == round)
                    .map(|b| bet_line(state, b))
                    .collect();
                if !lines.is_empty() {
                    rounds.push(RoundScore::new(round, lines));
                }
            }
            PlayerScore::new(&player.name, player.seat, rounds, Vec::new())
        })
        .collect();
    // rules: most points wins; no tie-break exists.
    score::rank(&mut players, |p| p.total);
    Scoreboard {
        lower_wins: false,
        winners: score::winners(&players),
        leaders: Vec::new(),
        tiebreak: shared_win(&players),
        players,
        house_rules: house_rules(&state.options),
        details: Some(details(state)),
    }
}

/// Statistics. Per player, per active bet at game end: `bet:<horse>` = 1,
/// `bet_won:<horse>` = 1 when the player is among the winners (else 0), `late_penalty`,
/// `late_bets` = 1 when that penalty is above 0 (else 0) and `bet_points:<horse>` = the
/// points the bet gave. For the game: `winning_horse:<horse>` = 1 for the horse placed 1st.
pub fn facts(state: &State) -> Vec<Fact> {
    let board = score(state);
    let mut facts = Vec::new();
    for (seat, player) in state.players.iter().enumerate() {
        let name = player.name.as_str();
        let won = board.winners.iter().any(|w| w == name);
        for bet in state.bets.iter().filter(|b| b.player == seat) {
            let horse = bet.horse;
            let penalty = late_penalty(bet.round);
            facts.push(Fact::player(name, &Key::Bet(horse), 1));
            facts.push(Fact::player(name, &Key::BetWon(horse), i64::from(won)));
            facts.push(Fact::player(name, &Key::LatePenalty, penalty));
            facts.push(Fact::player(name, &Key::LateBets, i64::from(penalty > 0)));
            facts.push(Fact::player(
                name,
                &Key::BetPoints(horse),
                bet_line(state, bet).points,
            ));
        }
    }
    if let Some(first) = Horse::ALL
        .into_iter()
        .find(|&h| state.race.place_of(h) == 1)
    {
        facts.push(Fact::game(&Key::WinningHorse(first), 1));
    }
    facts
}

/// One active bet's points with the arithmetic a player can check.
fn bet_line(state: &State, bet: &Bet) -> Line {
    let place = state.race.place_of(bet.horse);
    let bonus = bet.horse.starting_bonus();
    let points = place_points(place);
    let penalty = late_penalty(bet.round);
    let label = said!(
        "server.mint_julep.line.bet",
        horse = Arg::word(bet.horse.name()),
        round = bet.round
    );
    let sum = said!(
        "server.mint_julep.detail.sum",
        bonus = bonus,
        place = ordinal(place),
        points = points
    );
    let sum = if penalty == 0 {
        sum
    } else {
        said!(
            "server.mint_julep.detail.late_penalty",
            sum = sum,
            penalty = penalty
        )
    };
    // rules: with 2 players every bet is scored on its own.
    let backers = if state.players.len() == 2 {
        1
    } else {
        state.bets.iter().filter(|b| b.horse == bet.horse).count() as i64
    };
    if backers <= 1 {
        let total = bonus + points - penalty;
        return Line::new(
            label,
            total,
            said!("server.mint_julep.detail.total", sum = sum, total = total),
        );
    }
    // rules: integer division, remainder lost; Rust's `/` rounds a negative share toward zero.
    let split = |amount: i64| {
        let share = amount / backers;
        let division = match (amount % backers, amount < 0) {
            (0, _) => said!(
                "server.mint_julep.detail.division",
                amount = amount,
                backers = backers,
                share = share
            ),
            (_, false) => said!(
                "server.mint_julep.detail.division_remainder_lost",
                amount = amount,
                backers = backers,
                share = share
            ),
            (_, true) => said!(
                "server.mint_julep.detail.division_toward_zero",
                amount = amount,
                backers = backers,
                share = share
            ),
        };
        (share, division)
    };
    match state.options.split {
        Split::BeforePenalty => {
            // The late penalty comes after the split here, so the sum is the one without it.
            let before = said!(
                "server.mint_julep.detail.sum",
                bonus = bonus,
                place = ordinal(place),
                points = points
            );
            let (share, division) = split(bonus + points);
            let total = share - penalty;
            let detail = if penalty == 0 {
                said!(
                    "server.mint_julep.detail.split",
                    sum = before,
                    amount = bonus + points,
                    backers = backers,
                    division = division
                )
            } else {
                said!(
                    "server.mint_julep.detail.split_then_penalty",
                    sum = before,
                    amount = bonus + points,
                    backers = backers,
                    division = division,
                    penalty = penalty,
                    total = total
                )
            };
            Line::new(label, total, detail)
        }
        Split::AfterPenalty => {
            let before = bonus + points - penalty;
            let (share, division) = split(before);
            Line::new(
                label,
                share,
                said!(
                    "server.mint_julep.detail.split",
                    sum = sum,
                    amount = before,
                    backers = backers,
                    division = division
                ),
            )
        }
    }
}

/// "1st", "2nd" in the catalogues' words.
fn ordinal(place: usize) -> Message {
    match place {
        1 => said!("server.ordinal.first"),
        2 => said!("server.ordinal.second"),
        3 => said!("server.ordinal.third"),
        n => said!("server.ordinal.nth", n = n),
    }
}

/// rules: ties are shared — there is no tie-break.
fn shared_win(players: &[PlayerScore]) -> Option<Tiebreak> {
    let winners: Vec<&str> = players
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| p.name.as_str())
        .collect();
    if winners.len() < 2 {
        return None;
    }
    let best = players.first().map_or(0, |p| p.total);
    Some(Tiebreak {
        rule: said!("server.mint_julep.tiebreak.none"),
        detail: said!(
            "server.tiebreak.tied_share",
            names = said_names(&winners),
            total = best
        ),
    })
}

/// The house-rule points in force, always listed.
fn house_rules(options: &Options) -> Vec<HouseRule> {
    vec![HouseRule {
        option: "split".into(),
        value: json!(options.split),
        default: options.split == Split::default(),
        note: said!("server.mint_julep.house_rule.split"),
    }]
}

/// The race as it stands (groups front to back, each top first, with flipped flags), the
/// round and the active bets, for a phone to draw the track.
fn details(state: &State) -> serde_json::Value {
    let mut race = state.race.to_json();
    race["recorded_finish_only"] = json!(state.finish_only);
    let bets: Vec<serde_json::Value> = state
        .bets
        .iter()
        .map(|b| {
            json!({
                "player": state.players[b.player].name,
                "horse": b.horse.id(),
                "round": b.round,
                "initiative": b.initiative.map(String::from),
            })
        })
        .collect();
    json!({
        "round": state.round,
        "race_started": state.round_race != RoundRace::NotStarted,
        "race": race,
        "bets": bets,
    })
}
