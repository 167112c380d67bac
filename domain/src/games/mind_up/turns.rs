//! `cards_played` and `last_cards_placed`: a round's turns, resolved by the engine.

use super::catalogue::Number;
use super::events::CardsDown;
use super::state::{
    Cards, Hand, Place, Round, State, Turn, Whereabouts, current, numbers, open_round, place,
    turns_in,
};
use crate::error::RuleError;
use crate::pointer::pointer;

/// How the cards came down: played in a turn, or placed at the round's end (the refusals say
/// which).
#[derive(Debug, Clone, Copy)]
enum Down {
    Played,
    Placed,
}

/// Checks that each player's card is theirs to put down: in their hand, or one of its
/// unknown cards while it is nowhere else at the table.
fn check_cards_down(
    state: &State,
    round: &Round,
    event: &CardsDown,
    down: Down,
) -> Result<(), RuleError> {
    let table = Whereabouts::of(round);
    let played_before = |card| match &table {
        Some(table) => table.played_before(card),
        None => round.played_before(card),
    };
    let locate = |card| match &table {
        Some(table) => table.locate(card),
        None => round.locate(card),
    };
    for (seat, &card) in event.cards.iter().enumerate() {
        let name = state.players[seat].name.as_str();
        let at = || pointer(["cards", name]);
        if let Some(other) = event.cards[..seat].iter().position(|&c| c == card) {
            return Err(RuleError::said(
                at(),
                match down {
                    Down::Played => crate::said!(
                        "server.mind_up.refusal.both_played_every_card_exists_once",
                        name = &state.players[other].name,
                        other = name,
                        card = card
                    ),
                    Down::Placed => crate::said!(
                        "server.mind_up.refusal.both_placed_every_card_exists_once",
                        name = &state.players[other].name,
                        other = name,
                        card = card
                    ),
                },
            ));
        }
        if let Some((turn, by)) = played_before(card) {
            return Err(RuleError::said(
                at(),
                match down {
                    Down::Played => crate::said!(
                        "server.mind_up.refusal.played_but_was_already_played_turn",
                        name = name,
                        card = card,
                        turn = turn,
                        other = &state.players[by].name
                    ),
                    Down::Placed => crate::said!(
                        "server.mind_up.refusal.placed_but_was_already_played_turn",
                        name = name,
                        card = card,
                        turn = turn,
                        other = &state.players[by].name
                    ),
                },
            ));
        }
        let hand = &round.hands[seat];
        let problem = match locate(card) {
            Some(Place::Hand(s)) if s == seat => None,
            Some(Place::Hand(s)) => Some(crate::said!(
                "server.mind_up.problem.in_hand",
                name = &state.players[s].name
            )),
            Some(Place::Prize) => Some(crate::said!("server.mind_up.problem.prize")),
            Some(Place::Row(s)) if s == seat => Some(crate::said!(
                "server.mind_up.problem.in_own_row",
                name = name
            )),
            Some(Place::Row(s)) => Some(crate::said!(
                "server.mind_up.problem.in_row",
                name = &state.players[s].name
            )),
            None if hand.unknown > 0 => None,
            None => Some(crate::said!(
                "server.mind_up.problem.hand_holds",
                name = name,
                cards = numbers(hand.known())
            )),
        };
        if let Some(problem) = problem {
            return Err(RuleError::said(
                at(),
                match down {
                    Down::Played => crate::said!(
                        "server.mind_up.refusal.played_but_not_hand",
                        name = name,
                        card = card,
                        problem = problem
                    ),
                    Down::Placed => crate::said!(
                        "server.mind_up.refusal.placed_but_not_hand",
                        name = name,
                        card = card,
                        problem = problem
                    ),
                },
            ));
        }
    }
    Ok(())
}

fn take_from_hand(hand: &mut Hand, card: Number) {
    hand.take(card);
}

/// rules: sort the played cards; the k-th lowest takes the k-th lowest prize; the played
/// cards become the next prizes.
pub(super) fn play_turn(state: &mut State, event: CardsDown) -> Result<(), RuleError> {
    let round = open_round(state, event.round, || {
        crate::said!("server.mind_up.what.turns")
    })?;
    let r = round.number;
    if round.prizes.is_none() {
        return Err(RuleError::said(
            "",
            crate::said!(
                "server.mind_up.refusal.prizes_table_are_unknown_because",
                previous = r - 1,
                round = r
            ),
        ));
    }
    if round.turns.len() == turns_in(r) {
        return Err(RuleError::said(
            "",
            crate::said!(
                "server.mind_up.refusal.round_has_turns_all_were",
                round = r,
                turns = turns_in(r)
            ),
        ));
    }
    check_cards_down(state, round, &event, Down::Played)?;

    let State {
        catalogue, rounds, ..
    } = state;
    let round = current(rounds);
    let cards = event.cards;
    // The cards are all different (checked above): the k-th lowest card, the one with k
    // cards below it, takes the k-th lowest prize.
    let prizes = round.prizes.get_or_insert_with(Vec::new);
    prizes.sort_unstable();
    let took: Vec<Number> = cards
        .iter()
        .map(|&card| prizes[cards.iter().filter(|&&c| c < card).count()])
        .collect();
    prizes.clear();
    prizes.extend_from_slice(&cards);
    prizes.sort_unstable();
    for (seat, &card) in cards.iter().enumerate() {
        take_from_hand(&mut round.hands[seat], card);
        place(&mut round.rows[seat], took[seat], catalogue);
    }
    round.turns.push(Turn {
        played: Cards::new(&cards),
        took: Cards::new(&took),
    });
    Ok(())
}

/// rules: the last card is not played; it goes straight into its owner's row.
pub(super) fn place_last_cards(state: &mut State, event: &CardsDown) -> Result<(), RuleError> {
    let round = open_round(state, event.round, || {
        crate::said!("server.mind_up.what.last_cards")
    })?;
    let r = round.number;
    if round.turns.len() < turns_in(r) {
        return Err(RuleError::said(
            "",
            crate::said!(
                "server.mind_up.refusal.round_not_over_turns_are_2",
                round = r,
                turns = round.turns.len(),
                round_turns = turns_in(r)
            ),
        ));
    }
    check_cards_down(state, round, event, Down::Placed)?;
    let State {
        catalogue, rounds, ..
    } = state;
    let round = current(rounds);
    for (seat, &card) in event.cards.iter().enumerate() {
        take_from_hand(&mut round.hands[seat], card);
        place(&mut round.rows[seat], card, catalogue);
    }
    round.over = true;
    Ok(())
}
