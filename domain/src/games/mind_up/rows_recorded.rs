//! `rows_recorded`: a round recorded by its end rows instead of turn by turn.

use super::catalogue::Number;
use super::events::RowsRecorded;
use super::state::{Round, Row, State, current, hand_size, open_round, sorted, turns_in};
use crate::error::RuleError;
use crate::pointer::pointer;

/// The end-of-round shortcut. The rows are checked for shape (one colour per column, no colour
/// twice, 6 + r cards) and against what the table held at the round's start.
pub(super) fn record_rows(state: &mut State, event: RowsRecorded) -> Result<(), RuleError> {
    let round = open_round(state, event.round, || {
        crate::said!("server.mind_up.what.rows")
    })?;
    let r = round.number;
    if !round.turns.is_empty() {
        return Err(RuleError::said(
            "",
            crate::said!(
                "server.mind_up.refusal.round_being_recorded_turn_turn",
                round = r,
                turns = round.turns.len()
            ),
        ));
    }
    let mut rows: Vec<Row> = Vec::with_capacity(event.rows.len());
    for (seat, columns) in event.rows.iter().enumerate() {
        let row = check_row(state, r, seat, columns)?;
        rows.push(row);
    }
    check_rows_against_table(state, round, &event.rows)?;

    // When the whole table was known at the start, what the rows did not take is the prizes.
    let everything_known = round.prizes.is_some() && round.hands.iter().all(|h| h.unknown == 0);
    let left_over = everything_known.then(|| {
        let taken: Vec<Number> = rows.iter().flat_map(Row::iter).flatten().copied().collect();
        let left: Vec<Number> = round
            .hands
            .iter()
            .flat_map(|h| h.known().iter())
            .chain(round.prizes.iter().flatten())
            .copied()
            .filter(|c| !taken.contains(c))
            .collect();
        sorted(&left)
    });
    let round = current(&mut state.rounds);
    round.rows = rows;
    round.prizes = left_over;
    for hand in &mut round.hands {
        hand.empty();
    }
    round.rows_recorded = true;
    round.over = true;
    Ok(())
}

fn check_row(
    state: &State,
    r: u32,
    seat: usize,
    columns: &[Vec<Number>],
) -> Result<Row, RuleError> {
    let name = state.players[seat].name.as_str();
    let catalogue = &state.catalogue;
    let at = |rest: &[String]| {
        pointer(
            ["rows".to_owned(), name.to_owned()]
                .iter()
                .chain(rest)
                .collect::<Vec<_>>(),
        )
    };
    let total: usize = columns.iter().map(Vec::len).sum();
    if total != hand_size(r) {
        return Err(RuleError::said(
            at(&[]),
            crate::said!(
                "server.mind_up.refusal.round_row_holds_cards_gained",
                round = r,
                cards = hand_size(r),
                gained = turns_in(r),
                name = name,
                total = total
            ),
        ));
    }
    // rules: columns fill from the left, so an empty column has only empty ones to its right.
    let used = columns
        .iter()
        .rposition(|c| !c.is_empty())
        .map_or(0, |k| k + 1);
    if let Some(gap) = columns[..used].iter().position(Vec::is_empty) {
        return Err(RuleError::said(
            at(&[gap.to_string()]),
            crate::said!(
                "server.mind_up.refusal.column_row_empty_but_column",
                column = gap + 1,
                name = name
            ),
        ));
    }
    let mut seen: Vec<Number> = Vec::new();
    for (k, column) in columns[..used].iter().enumerate() {
        let colour = catalogue.colour(column[0]);
        for (j, &card) in column.iter().enumerate() {
            let here = || at(&[k.to_string(), j.to_string()]);
            if seen.contains(&card) {
                return Err(RuleError::said(
                    here(),
                    crate::said!(
                        "server.mind_up.refusal.twice_row_every_card_exists",
                        card = card,
                        name = name
                    ),
                ));
            }
            seen.push(card);
            if catalogue.colour(card) != colour {
                return Err(RuleError::said(
                    here(),
                    crate::said!(
                        "server.mind_up.refusal.column_row_mixes_column_holds",
                        column = k + 1,
                        name = name,
                        colour = colour.said(),
                        first_card = column[0],
                        other_colour = catalogue.colour(card).said(),
                        card = card
                    ),
                ));
            }
        }
        if let Some(first) = columns[..k]
            .iter()
            .position(|c| catalogue.colour(c[0]) == colour)
        {
            return Err(RuleError::said(
                at(&[k.to_string()]),
                crate::said!(
                    "server.mind_up.refusal.columns_row_colour_has_one",
                    colour = colour.said(),
                    first = first + 1,
                    second = k + 1,
                    name = name
                ),
            ));
        }
    }
    Ok(Row::of(&columns[..used]))
}

/// rules: numbers are unique at the table; every row card was in a hand or among the prizes
/// when the round started (as far as the table is known).
fn check_rows_against_table(
    state: &State,
    round: &Round,
    rows: &[Vec<Vec<Number>>],
) -> Result<(), RuleError> {
    let mut unknown_cards: usize = round
        .hands
        .iter()
        .map(|h| usize::from(h.unknown))
        .sum::<usize>()
        + if round.prizes.is_none() {
            state.players.len()
        } else {
            0
        };
    let mut seen: Vec<(Number, usize)> = Vec::new();
    for (seat, row) in rows.iter().enumerate() {
        let name = state.players[seat].name.as_str();
        for (k, column) in row.iter().enumerate() {
            for (j, &card) in column.iter().enumerate() {
                let at = || pointer(["rows", name, &k.to_string(), &j.to_string()]);
                if let Some(&(_, other)) = seen.iter().find(|(c, _)| *c == card) {
                    return Err(RuleError::said(
                        at(),
                        crate::said!(
                            "server.mind_up.refusal.row_row_every_card_exists",
                            card = card,
                            name = &state.players[other].name,
                            other = name
                        ),
                    ));
                }
                seen.push((card, seat));
                if round.locate(card).is_some() {
                    continue;
                }
                if unknown_cards == 0 {
                    return Err(RuleError::said(
                        at(),
                        crate::said!(
                            "server.mind_up.refusal.was_not_table_when_round",
                            card = card,
                            number = &round.number
                        ),
                    ));
                }
                unknown_cards -= 1;
            }
        }
    }
    Ok(())
}
