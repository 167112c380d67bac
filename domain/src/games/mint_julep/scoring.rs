//! Mint Julep scores: per active bet, starting bonus + place points − late penalty, shared
//! between the backers of one horse (3–4 players); highest total wins, ties are shared.

use serde_json::json;

use super::horses::{Horse, ordinal, place_points};
use super::insights::Key;
use super::state::{Bet, RoundRace, State};
use super::{Options, Split};
use crate::score::{
    self, Fact, HouseRule, Line, PlayerScore, RoundScore, Scoreboard, Tiebreak, list_names,
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
    let label = format!("bet on {} (round {})", bet.horse.name(), bet.round);
    let sum = format!("start bonus {bonus} + {} place {points}", ordinal(place));
    let penalty_text = if penalty == 0 {
        String::new()
    } else {
        format!(" − late penalty {penalty}")
    };
    // rules: with 2 players every bet is scored on its own.
    let backers = if state.players.len() == 2 {
        1
    } else {
        state.bets.iter().filter(|b| b.horse == bet.horse).count() as i64
    };
    if backers <= 1 {
        let total = bonus + points - penalty;
        return Line::new(label, total, format!("{sum}{penalty_text} = {total}"));
    }
    // rules: integer division, remainder lost; Rust's `/` rounds a negative share toward zero.
    let split = |amount: i64| {
        let share = amount / backers;
        let note = match (amount % backers, amount < 0) {
            (0, _) => "",
            (_, false) => " (remainder lost)",
            (_, true) => " (remainder lost, rounded toward zero)",
        };
        (share, format!("{amount} / {backers} = {share}{note}"))
    };
    match state.options.split {
        Split::BeforePenalty => {
            let (share, division) = split(bonus + points);
            let total = share - penalty;
            let detail = if penalty == 0 {
                format!(
                    "{sum} = {}, split between {backers} backers: {division}",
                    bonus + points
                )
            } else {
                format!(
                    "{sum} = {}, split between {backers} backers: {division}{penalty_text} = {total}",
                    bonus + points
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
                format!(
                    "{sum}{penalty_text} = {before}, split between {backers} backers: {division}"
                ),
            )
        }
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
        rule: "none: Mint Julep has no tie-break".into(),
        detail: format!(
            "{} tied on {best} points and share the win",
            list_names(&winners)
        ),
    })
}

/// The house-rule points in force, always listed.
fn house_rules(options: &Options) -> Vec<HouseRule> {
    vec![HouseRule {
        option: "split".into(),
        value: json!(options.split),
        default: options.split == Split::default(),
        note: "several backers of one horse: split bonus + place then subtract each own late \
               penalty (before_penalty), or split each backer's points after the penalty \
               (after_penalty)"
            .into(),
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
