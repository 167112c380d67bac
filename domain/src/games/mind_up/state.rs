//! The table of a Mind Up! game as the events built it (`rules.rs` folds the events into it).
//!
//! The engine resolves every turn itself: the played cards are sorted, the k-th lowest takes
//! the k-th lowest prize, and the played cards become the next prizes. It keeps every hand as
//! far as it is known (a given hand, or last round's row plus one unknown drawn card), so a
//! card that is not where it is played from is refused with the place it really is.

use super::Options;
use super::catalogue::{Catalogue, Number};
use super::events::{COLUMNS, CardsDown, RoundStarted, RowsRecorded};
use super::objectives::Face;
use crate::error::RuleError;
use crate::pointer::pointer;
use crate::score::list_names;
use crate::setup::Player;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub players: Vec<Player>,
    pub options: Options,
    /// The printed cards with the game's `cards` overrides.
    pub catalogue: Catalogue,
    /// Rounds started so far, in order; all but the last are over.
    pub rounds: Vec<Round>,
}

/// A score row: its columns left to right, none empty; each column holds one colour.
pub type Row = Vec<Vec<Number>>;

#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    pub number: u32,
    /// The score card above each column, left to right: column k scores `columns[k-1]`.
    pub columns: [u8; COLUMNS],
    pub objectives: Vec<Face>,
    /// Each player's hand, in seat order.
    pub hands: Vec<Hand>,
    /// Each player's score row, in seat order.
    pub rows: Vec<Row>,
    /// The prize cards face up on the table; `None` when unknown (after `rows_recorded`).
    pub prizes: Option<Vec<Number>>,
    pub turns: Vec<Turn>,
    /// The round was recorded with `rows_recorded` instead of turns.
    pub rows_recorded: bool,
    pub over: bool,
}

/// A hand as far as the events tell: the cards known to be in it, and how many are not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hand {
    pub known: Vec<Number>,
    pub unknown: usize,
}

/// One turn: what each player played and which prize they took, in seat order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub played: Vec<Number>,
    pub took: Vec<Number>,
}

/// rules: a round-r hand holds 6 + r cards (7, 8, 9), and so does the row at round end.
pub fn hand_size(round: u32) -> usize {
    6 + round as usize
}

/// rules: every card but the last is played, one per turn: 5 + r turns.
pub fn turns_in(round: u32) -> usize {
    hand_size(round) - 1
}

/// Where a card is at the table right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Hand(usize),
    Prize,
    Row(usize),
}

impl Round {
    fn locate(&self, card: Number) -> Option<Place> {
        if let Some(seat) = self.hands.iter().position(|h| h.known.contains(&card)) {
            return Some(Place::Hand(seat));
        }
        if self.prizes.as_ref().is_some_and(|p| p.contains(&card)) {
            return Some(Place::Prize);
        }
        self.rows
            .iter()
            .position(|row| row.iter().flatten().any(|&c| c == card))
            .map(Place::Row)
    }

    /// The turn (1-based) and seat of an earlier play of `card` in this round.
    fn played_before(&self, card: Number) -> Option<(usize, usize)> {
        self.turns.iter().enumerate().find_map(|(t, turn)| {
            turn.played
                .iter()
                .position(|&c| c == card)
                .map(|seat| (t + 1, seat))
        })
    }
}

/// Where every card of a round is, looked up at once: the answers of [`Round::played_before`]
/// and [`Round::locate`] for all cards, built in one pass over the round.
struct Whereabouts {
    /// Per card: the turn (1-based, 0 when not played this round) and seat of its first play.
    played: [(u8, u8); 256],
    /// Per card: 0 nowhere, 1 a prize, 2 + 2·seat in that hand, 3 + 2·seat in that row.
    place: [u8; 256],
}

impl Whereabouts {
    /// `None` when the round is too large for the compact table (never in a real game).
    fn of(round: &Round) -> Option<Self> {
        let seats = round.hands.len().max(round.rows.len());
        if seats > 126
            || round.turns.len() > 254
            || round.turns.iter().any(|t| t.played.len() > 255)
        {
            return None;
        }
        let mut table = Whereabouts {
            played: [(0, 0); 256],
            place: [0; 256],
        };
        // Written latest first, so the first match (as the scans find it) stays.
        for (t, turn) in round.turns.iter().enumerate().rev() {
            for (seat, &card) in turn.played.iter().enumerate().rev() {
                table.played[usize::from(card)] = (t as u8 + 1, seat as u8);
            }
        }
        for (seat, row) in round.rows.iter().enumerate().rev() {
            for &card in row.iter().flatten() {
                table.place[usize::from(card)] = 3 + 2 * seat as u8;
            }
        }
        for &card in round.prizes.iter().flatten() {
            table.place[usize::from(card)] = 1;
        }
        for (seat, hand) in round.hands.iter().enumerate().rev() {
            for &card in &hand.known {
                table.place[usize::from(card)] = 2 + 2 * seat as u8;
            }
        }
        Some(table)
    }

    fn played_before(&self, card: Number) -> Option<(usize, usize)> {
        match self.played[usize::from(card)] {
            (0, _) => None,
            (turn, seat) => Some((usize::from(turn), usize::from(seat))),
        }
    }

    fn locate(&self, card: Number) -> Option<Place> {
        match self.place[usize::from(card)] {
            0 => None,
            1 => Some(Place::Prize),
            code if code % 2 == 0 => Some(Place::Hand(usize::from(code / 2 - 1))),
            code => Some(Place::Row(usize::from(code / 2 - 1))),
        }
    }
}

/// rules: a gained card goes onto the column holding its colour, else the leftmost empty one.
pub fn place(row: &mut Row, card: Number, catalogue: &Catalogue) {
    let colour = catalogue.colour(card);
    match row
        .iter_mut()
        .find(|column| column.first().map(|&c| catalogue.colour(c)) == Some(colour))
    {
        Some(column) => column.push(card),
        None => {
            // Room for the column's share of a round's cards, so it seldom grows.
            let mut column = Vec::with_capacity(8);
            column.push(card);
            row.push(column);
        }
    }
}

fn numbers(cards: &[Number]) -> String {
    let mut sorted = cards.to_vec();
    sorted.sort_unstable();
    let shown: Vec<String> = sorted.iter().map(u8::to_string).collect();
    if shown.is_empty() {
        "nothing".into()
    } else {
        list_names(&shown)
    }
}

// ---------------------------------------------------------------------------------------------
// round_started

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
        rows: (0..state.players.len())
            .map(|_| Vec::with_capacity(COLUMNS))
            .collect(),
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
            hands.push(Hand {
                unknown: size - known.len(),
                known,
            });
            continue;
        };
        let at = || pointer(["hands", name]);
        if given.len() != size {
            let makeup = if r == 1 {
                String::new()
            } else {
                format!(
                    " (the round-{} row of {} plus one drawn card)",
                    r - 1,
                    size - 1
                )
            };
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.round_hand_holds_cards_has",
                    round = r,
                    size = size,
                    makeup = makeup,
                    name = name,
                    given = given.len()
                ),
            ));
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
                .map(|p| format!("in {}'s hand", p.name))
                .or_else(|| {
                    previous
                        .and_then(|p| p.prizes.as_ref())
                        .filter(|p| p.contains(&card))
                        .map(|_| "a prize carried over on the table".to_owned())
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
        hands.push(Hand {
            known: given,
            unknown: 0,
        });
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
        if let Some(seat) = hands.iter().position(|h| h.known.contains(&card)) {
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

fn sorted(cards: &[Number]) -> Vec<Number> {
    let mut sorted = cards.to_vec();
    sorted.sort_unstable();
    sorted
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
                    faces = list_names(&faces)
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
                    codes = list_names(&codes),
                    round = r
                ),
            ));
        }
    }
    Ok(given.clone())
}

// ---------------------------------------------------------------------------------------------
// cards_played, last_cards_placed

/// The round an event about `round` belongs to: the one being played.
fn open_round<'a>(state: &'a State, round: u32, what: &str) -> Result<&'a Round, RuleError> {
    match state.rounds.last() {
        None => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.no_round_has_started_record",
                what = what
            ),
        )),
        Some(open) if open.over && open.number == round && open.rows_recorded => {
            Err(RuleError::said(
                "/round",
                crate::said!(
                    "server.mind_up.refusal.round_was_recorded_rows_recorded",
                    round = round,
                    what = what
                ),
            ))
        }
        Some(open) if open.over => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.round_over_record_round_started",
                round = &open.number,
                next = open.number + 1,
                what = what
            ),
        )),
        Some(open) if open.number != round => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.this_round_not_round_events",
                number = &open.number,
                round = round
            ),
        )),
        Some(open) => Ok(open),
    }
}

/// Checks that each player's card is theirs to put down: in their hand, or one of its
/// unknown cards while it is nowhere else at the table.
fn check_cards_down(
    state: &State,
    round: &Round,
    event: &CardsDown,
    verb: &str,
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
                crate::said!(
                    "server.mind_up.refusal.both_every_card_exists_once",
                    name = &state.players[other].name,
                    other = name,
                    verb = verb,
                    card = card
                ),
            ));
        }
        if let Some((turn, by)) = played_before(card) {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.but_was_already_played_turn",
                    name = name,
                    verb = verb,
                    card = card,
                    turn = turn,
                    other = &state.players[by].name
                ),
            ));
        }
        let hand = &round.hands[seat];
        let problem = match locate(card) {
            Some(Place::Hand(s)) if s == seat => None,
            Some(Place::Hand(s)) => Some(format!("it is in {}'s hand", state.players[s].name)),
            Some(Place::Prize) => Some("it is a prize on the table".to_owned()),
            Some(Place::Row(s)) if s == seat => Some(format!("it is in {name}'s own row")),
            Some(Place::Row(s)) => Some(format!("it is in {}'s row", state.players[s].name)),
            None if hand.unknown > 0 => None,
            None => Some(format!("{name}'s hand holds {}", numbers(&hand.known))),
        };
        if let Some(problem) = problem {
            return Err(RuleError::said(
                at(),
                crate::said!(
                    "server.mind_up.refusal.but_not_hand",
                    name = name,
                    verb = verb,
                    card = card,
                    problem = problem
                ),
            ));
        }
    }
    Ok(())
}

fn take_from_hand(hand: &mut Hand, card: Number) {
    match hand.known.iter().position(|&c| c == card) {
        Some(i) => {
            hand.known.remove(i);
        }
        None => hand.unknown = hand.unknown.saturating_sub(1),
    }
}

fn current(rounds: &mut [Round]) -> &mut Round {
    let last = rounds.len() - 1;
    &mut rounds[last]
}

/// rules: sort the played cards; the k-th lowest takes the k-th lowest prize; the played
/// cards become the next prizes.
pub(super) fn play_turn(state: &mut State, event: CardsDown) -> Result<(), RuleError> {
    let round = open_round(state, event.round, "its turns")?;
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
    check_cards_down(state, round, &event, "played")?;

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
        played: cards,
        took,
    });
    Ok(())
}

/// rules: the last card is not played; it goes straight into its owner's row.
pub(super) fn place_last_cards(state: &mut State, event: &CardsDown) -> Result<(), RuleError> {
    let round = open_round(state, event.round, "its last cards")?;
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
    check_cards_down(state, round, event, "placed")?;
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

// ---------------------------------------------------------------------------------------------
// rows_recorded

/// The end-of-round shortcut. The rows are checked for shape (one colour per column, no colour
/// twice, 6 + r cards) and against what the table held at the round's start.
pub(super) fn record_rows(state: &mut State, event: RowsRecorded) -> Result<(), RuleError> {
    let round = open_round(state, event.round, "its rows")?;
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
        let taken: Vec<Number> = rows.iter().flatten().flatten().copied().collect();
        let left: Vec<Number> = round
            .hands
            .iter()
            .flat_map(|h| h.known.iter())
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
        hand.known.clear();
        hand.unknown = 0;
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
                        colour = colour.name(),
                        first_card = column[0],
                        other_colour = catalogue.colour(card).name(),
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
                    colour = colour.name(),
                    first = first + 1,
                    second = k + 1,
                    name = name
                ),
            ));
        }
    }
    Ok(columns[..used].to_vec())
}

/// rules: numbers are unique at the table; every row card was in a hand or among the prizes
/// when the round started (as far as the table is known).
fn check_rows_against_table(
    state: &State,
    round: &Round,
    rows: &[Vec<Vec<Number>>],
) -> Result<(), RuleError> {
    let mut unknown_cards: usize = round.hands.iter().map(|h| h.unknown).sum::<usize>()
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
