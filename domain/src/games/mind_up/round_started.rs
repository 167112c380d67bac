//! `round_started`: a round's hands, prizes and objectives, checked against the table.

use super::Options;
use super::catalogue::Number;
use super::events::RoundStarted;
use super::objectives::Face;
use super::state::{Hand, Round, Row, State, hand_size, numbers, sorted, turns_in};
use crate::error::RuleError;
use crate::pointer::pointer;
use crate::score::said_names;

pub(super) fn start_round(state: &State, event: RoundStarted) -> Result<Round, RuleError> {
    let r = event.round;
    let previous = state.rounds.last();
    if let Some(open) = previous.filter(|p| !p.over) {
        return Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.round_not_over_turns_are",
                round = &open.number,
                turns = open.turns.len(),
                round_turns = turns_in(open.number)
            ),
        ));
    }
    let expected = state.rounds.len() as u32 + 1;
    if r != expected {
        return Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.round_comes_next_rounds_are",
                expected = expected,
                round = r
            ),
        ));
    }
    let mut event = event;
    let hands = hands(state, &mut event, previous)?;
    let prizes = prizes(state, &mut event, previous, &hands)?;
    let objectives = objectives(state, &event)?;
    Ok(Round {
        number: r,
        columns: event.columns,
        objectives,
        hands,
        rows: vec![Row::default(); state.players.len()],
        prizes,
        turns: Vec::with_capacity(turns_in(r)),
        rows_recorded: false,
        over: false,
    })
}

/// rules: each row becomes its owner's next hand plus one drawn card.
fn hands(
    state: &State,
    event: &mut RoundStarted,
    previous: Option<&Round>,
) -> Result<Vec<Hand>, RuleError> {
    let r = event.round;
    let size = hand_size(r);
    let mut hands: Vec<Hand> = Vec::with_capacity(state.players.len());
    // First what the table already knows: last round's rows, now in hand.
    let mut carried: Vec<Vec<Number>> = (0..state.players.len())
        .map(|seat| {
            previous.map_or_else(Vec::new, |p| {
                p.rows[seat].iter().flatten().copied().collect()
            })
        })
        .collect();
    // The two lowest seats holding each card, in a carried row or a hand settled so far:
    // the lowest other than a seat is the first other player holding it.
    let mut holders = [[usize::MAX; 2]; 256];
    let hold = |holders: &mut [[usize; 2]; 256], card: Number, seat: usize| {
        let h = &mut holders[usize::from(card)];
        if seat == h[0] || seat == h[1] {
            return;
        }
        if seat < h[0] {
            h[1] = h[0];
            h[0] = seat;
        } else if seat < h[1] {
            h[1] = seat;
        }
    };
    for (seat, row) in carried.iter().enumerate() {
        for &card in row {
            hold(&mut holders, card, seat);
        }
    }
    for (seat, player) in state.players.iter().enumerate() {
        let name = player.name.as_str();
        // Other seats' rows are looked up in `holders`, so a seat's own can be moved out.
        let Some(given) = event.hands[seat].take() else {
            let known = std::mem::take(&mut carried[seat]);
            hands.push(Hand::new(&known, size - known.len()));
            continue;
        };
        let at = || pointer(["hands", name]);
        if given.len() != size {
            let said = if r == 1 {
                crate::said!(
                    "server.mind_up.refusal.round_hand_holds_cards_has",
                    round = r,
                    size = size,
                    name = name,
                    given = given.len()
                )
            } else {
                crate::said!(
                    "server.mind_up.refusal.round_hand_holds_row_and_drawn_cards_has",
                    round = r,
                    size = size,
                    previous = r - 1,
                    row = size - 1,
                    name = name,
                    given = given.len()
                )
            };
            return Err(RuleError::said(at(), said));
        }
        for (i, &card) in given.iter().enumerate() {
            if given[..i].contains(&card) {
                return Err(RuleError::said(
                    pointer(["hands", name, &i.to_string()]),
                    crate::said!(
                        "server.mind_up.refusal.twice_hand_every_card_exists",
                        card = card,
                        name = name
                    ),
                ));
            }
            // Another player's hand (given, or their last row) or the carried prizes.
            let [first, second] = holders[usize::from(card)];
            let other = if first == seat { second } else { first };
            let elsewhere = state
                .players
                .get(other)
                .map(|p| crate::said!("server.mind_up.place.in_hand", name = p.name.as_str()))
                .or_else(|| {
                    previous
                        .and_then(|p| p.prizes.as_ref())
                        .filter(|p| p.contains(&card))
                        .map(|_| crate::said!("server.mind_up.place.prize_carried_over"))
                });
            if let Some(place) = elsewhere {
                return Err(RuleError::said(
                    pointer(["hands", name, &i.to_string()]),
                    crate::said!(
                        "server.mind_up.refusal.so_cannot_also_hand",
                        card = card,
                        place = place,
                        name = name
                    ),
                ));
            }
        }
        if let Some(missing) = carried[seat].iter().find(|c| !given.contains(c)) {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.round_hand_round_row_plus",
                    name = name,
                    round = r,
                    previous = r - 1,
                    missing = missing
                ),
            ));
        }
        for &card in &given {
            hold(&mut holders, card, seat);
        }
        hands.push(Hand::new(&given, 0));
    }
    Ok(hands)
}

/// rules: round 1 reveals as many prizes as players; later rounds keep the carried-over ones.
fn prizes(
    state: &State,
    event: &mut RoundStarted,
    previous: Option<&Round>,
    hands: &[Hand],
) -> Result<Option<Vec<Number>>, RuleError> {
    let r = event.round;
    let n = state.players.len();
    let carried = previous.and_then(|p| p.prizes.as_ref());
    let Some(given) = event.prizes.take() else {
        if r == 1 {
            return Err(RuleError::said(
                "/prizes",
                crate::said!("server.mind_up.refusal.round_1_starts_prizes_table", n = n),
            ));
        }
        // Unknown after a rows_recorded round: this round can then only be recorded by rows.
        return Ok(carried.cloned());
    };
    if given.len() != n {
        return Err(RuleError::said(
            "/prizes",
            crate::said!(
                "server.mind_up.refusal.players_prizes_lie_table_not",
                n = n,
                given = given.len()
            ),
        ));
    }
    for (i, &card) in given.iter().enumerate() {
        let at = || pointer(["prizes", &i.to_string()]);
        if given[..i].contains(&card) {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.listed_twice_among_prizes_every",
                    card = card
                ),
            ));
        }
        if let Some(seat) = hands.iter().position(|h| h.known().contains(&card)) {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.hand_so_cannot_also_prize",
                    card = card,
                    name = &state.players[seat].name
                ),
            ));
        }
    }
    if let Some(carried) = carried
        && sorted(&given) != sorted(carried)
    {
        return Err(RuleError::said(
            "/prizes",
            crate::said!(
                "server.mind_up.refusal.prizes_carried_over_from_round",
                previous = r - 1,
                carried = numbers(carried),
                round = r,
                given = numbers(&given)
            ),
        ));
    }
    Ok(Some(given))
}

/// rulebook: "Si vous jouez avec plus de 3 cartes objectif, elles ne sont pas changées entre les
/// tours" — only with 4–5 do round 1's objectives stay for the whole game (and with 3 in games
/// stored before that reading, which kept them too).
fn objectives_kept_for_the_game(options: &Options) -> bool {
    options.objectives > 3 || (options.objectives == 3 && options.three_objectives_kept)
}

/// rules: exactly `objectives` faces, distinct letters (checked when parsed). With 4–5 they
/// are round 1's for the whole game; with 1–3 a new set is revealed each round, and a letter
/// of an earlier round may come back (three rounds of three need more than seven cards).
fn objectives(state: &State, event: &RoundStarted) -> Result<Vec<Face>, RuleError> {
    let wanted = state.options.objectives as usize;
    let r = event.round;
    let first_round = state.rounds.first().map(|f| f.objectives.clone());
    let kept_for_game = objectives_kept_for_the_game(&state.options);
    let given = match &event.objectives {
        None if wanted == 0 => return Ok(Vec::new()),
        // Kept from round 1: games stored before schema version 4 could leave them out.
        None if kept_for_game && r > 1 && state.options.kept_objectives_left_out => {
            return Ok(first_round.unwrap_or_default());
        }
        None if kept_for_game && r > 1 => {
            let first = first_round.unwrap_or_default();
            let faces: Vec<&str> = first.iter().map(|f| f.code()).collect();
            return Err(RuleError::said(
                "/objectives",
                crate::said!(
                    "server.mind_up.refusal.this_game_plays_objectives_round",
                    wanted = wanted,
                    round = r,
                    faces = said_names(&faces)
                ),
            ));
        }
        None if r > 1 => {
            return Err(RuleError::said(
                "/objectives",
                crate::said!(
                    "server.mind_up.refusal.this_game_plays_objective_1",
                    wanted = wanted,
                    round = r
                ),
            ));
        }
        None => {
            return Err(RuleError::said(
                "/objectives",
                crate::said!(
                    "server.mind_up.refusal.this_game_plays_objective_list",
                    wanted = wanted,
                    round = r
                ),
            ));
        }
        Some(given) => given,
    };
    if wanted == 0 && !given.is_empty() {
        return Err(RuleError::said(
            "/objectives",
            crate::said!("server.mind_up.refusal.this_game_played_without_objectives"),
        ));
    }
    if given.len() != wanted {
        return Err(RuleError::said(
            "/objectives",
            crate::said!(
                "server.mind_up.refusal.this_game_plays_objective_not",
                wanted = wanted,
                given = given.len()
            ),
        ));
    }
    if kept_for_game && let Some(first) = first_round {
        let mut a = given.clone();
        let mut b = first.clone();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            let codes: Vec<&str> = first.iter().map(|f| f.code()).collect();
            return Err(RuleError::said(
                "/objectives",
                crate::said!(
                    "server.mind_up.refusal.more_than_3_objectives_cards",
                    codes = said_names(&codes),
                    round = r
                ),
            ));
        }
    }
    Ok(given.clone())
}
