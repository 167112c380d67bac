//! The table of a Mind Up! game as the events built it (`rules.rs` folds the events into it).
//!
//! Every hand is kept as far as it is known (a given hand, or last round's row plus one unknown
//! drawn card), so a card that is not where it is played from is refused with the place it
//! really is. Each event family has its file: `round_started.rs`, `turns.rs` (`cards_played`,
//! `last_cards_placed`) and `rows_recorded.rs`.

use super::Options;
use super::catalogue::{Catalogue, Number};
use super::events::COLUMNS;
use super::objectives::Face;
use crate::error::RuleError;
use crate::message::Message;
use crate::score::said_names;
use crate::setup::Players;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub players: Players,
    pub options: Options,
    /// The printed cards with the game's `cards` overrides.
    pub catalogue: Catalogue,
    /// Rounds started so far, in order; all but the last are over.
    pub rounds: Vec<Round>,
}

/// A score row: its columns left to right, none empty; each column holds one colour. Its cards
/// are one list, column after column: a held game keeps every player's row of every round, and
/// a list a column cost more than its cards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    cards: Vec<Number>,
    /// How many cards each column holds, left to right; `columns` of them are in use.
    lengths: [u8; COLUMNS],
    columns: u8,
}

impl Row {
    /// A row from its columns, left to right, none empty (at most [`COLUMNS`]: checked when the
    /// event is read).
    pub fn of(columns: &[Vec<Number>]) -> Self {
        let mut row = Row::default();
        for column in columns.iter().take(COLUMNS) {
            row.lengths[usize::from(row.columns)] = column.len() as u8;
            row.columns += 1;
            row.cards.extend_from_slice(column);
        }
        row
    }

    /// The columns, left to right.
    pub fn iter(&self) -> impl Iterator<Item = &[Number]> {
        self.lengths[..usize::from(self.columns)]
            .iter()
            .scan(0, |start, &length| {
                let column = *start..*start + usize::from(length);
                *start = column.end;
                Some(&self.cards[column])
            })
    }

    /// How many columns hold cards.
    pub fn len(&self) -> usize {
        usize::from(self.columns)
    }

    pub fn is_empty(&self) -> bool {
        self.columns == 0
    }

    /// Adds `card` at the bottom of column `k` (0-based), or starts the next column with it.
    fn push(&mut self, k: usize, card: Number) {
        if k < self.len() {
            let end: usize = self.lengths[..=k].iter().map(|&n| usize::from(n)).sum();
            self.cards.insert(end, card);
            self.lengths[k] += 1;
        } else if self.len() < COLUMNS {
            // Five colours, five columns: a row never needs a sixth.
            self.cards.push(card);
            self.lengths[self.len()] = 1;
            self.columns += 1;
        }
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hand {
    known: Cards<HAND>,
    pub unknown: u8,
}

/// The most cards a hand holds: round 3's (rules: 6 + r).
const HAND: usize = 9;

impl Hand {
    /// A hand of `known` cards (a round's hand size at most, checked before) and `unknown` more.
    pub fn new(known: &[Number], unknown: usize) -> Self {
        Self {
            known: Cards::new(known),
            unknown: unknown.min(usize::from(u8::MAX)) as u8,
        }
    }

    /// The cards known to be in the hand.
    pub fn known(&self) -> &[Number] {
        &self.known
    }

    /// Takes `card` out of the hand: a known card, else one not known.
    pub fn take(&mut self, card: Number) {
        if !self.known.remove(card) {
            self.unknown = self.unknown.saturating_sub(1);
        }
    }

    /// The round's rows were recorded: what was in the hands no longer matters.
    pub fn empty(&mut self) {
        *self = Self::new(&[], 0);
    }
}

/// One turn: what each player played and which prize they took, in seat order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    pub played: Cards<SEATS>,
    pub took: Cards<SEATS>,
}

/// Most seats Mind Up! has (rules: 3–6 players).
const SEATS: usize = 6;

/// At most `N` cards, held in place: a held game keeps every hand and turn of its rounds, and
/// a small list each cost more than its cards. Room not held stays 0, so that two lists of the
/// same cards are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cards<const N: usize> {
    cards: [Number; N],
    held: u8,
}

impl<const N: usize> Cards<N> {
    /// The cards, in order (at most `N`: the callers' rules bound them before).
    pub fn new(cards: &[Number]) -> Self {
        debug_assert!(cards.len() <= N, "at most {N} cards");
        let held = cards.len().min(N);
        let mut room = [0; N];
        room[..held].copy_from_slice(&cards[..held]);
        Self {
            cards: room,
            held: held as u8,
        }
    }

    /// Takes `card` out, the others keeping their order: whether it was there.
    fn remove(&mut self, card: Number) -> bool {
        let held = usize::from(self.held);
        let Some(i) = self.cards[..held].iter().position(|&c| c == card) else {
            return false;
        };
        self.cards.copy_within(i + 1..held, i);
        self.cards[held - 1] = 0;
        self.held -= 1;
        true
    }
}

impl<const N: usize> std::ops::Deref for Cards<N> {
    type Target = [Number];

    fn deref(&self) -> &[Number] {
        &self.cards[..usize::from(self.held)]
    }
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
pub(super) enum Place {
    Hand(usize),
    Prize,
    Row(usize),
}

impl Round {
    pub(super) fn locate(&self, card: Number) -> Option<Place> {
        if let Some(seat) = self.hands.iter().position(|h| h.known().contains(&card)) {
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
    pub(super) fn played_before(&self, card: Number) -> Option<(usize, usize)> {
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
pub(super) struct Whereabouts {
    /// Per card: the turn (1-based, 0 when not played this round) and seat of its first play.
    played: [(u8, u8); 256],
    /// Per card: 0 nowhere, 1 a prize, 2 + 2·seat in that hand, 3 + 2·seat in that row.
    place: [u8; 256],
}

impl Whereabouts {
    /// `None` when the round is too large for the compact table (never in a real game).
    pub(super) fn of(round: &Round) -> Option<Self> {
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
            for &card in hand.known() {
                table.place[usize::from(card)] = 2 + 2 * seat as u8;
            }
        }
        Some(table)
    }

    pub(super) fn played_before(&self, card: Number) -> Option<(usize, usize)> {
        match self.played[usize::from(card)] {
            (0, _) => None,
            (turn, seat) => Some((usize::from(turn), usize::from(seat))),
        }
    }

    pub(super) fn locate(&self, card: Number) -> Option<Place> {
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
    let column = row
        .iter()
        .position(|column| column.first().map(|&c| catalogue.colour(c)) == Some(colour))
        .unwrap_or(row.len());
    row.push(column, card);
}

/// The cards, lowest first, as a list for a refusal ("nothing" for none).
pub(super) fn numbers(cards: &[Number]) -> Message {
    let mut sorted = cards.to_vec();
    sorted.sort_unstable();
    let shown: Vec<String> = sorted.iter().map(u8::to_string).collect();
    if shown.is_empty() {
        crate::said!("server.mind_up.no_cards")
    } else {
        said_names(&shown)
    }
}

/// The cards, lowest first.
pub(super) fn sorted(cards: &[Number]) -> Vec<Number> {
    let mut sorted = cards.to_vec();
    sorted.sort_unstable();
    sorted
}

/// The round an event about `round` belongs to: the one being played.
pub(super) fn open_round(
    state: &State,
    round: u32,
    what: fn() -> Message,
) -> Result<&Round, RuleError> {
    match state.rounds.last() {
        None => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.no_round_has_started_record",
                what = what()
            ),
        )),
        Some(open) if open.over && open.number == round && open.rows_recorded => {
            Err(RuleError::said(
                "/round",
                crate::said!(
                    "server.mind_up.refusal.round_was_recorded_rows_recorded",
                    round = round,
                    what = what()
                ),
            ))
        }
        Some(open) if open.over => Err(RuleError::said(
            "/round",
            crate::said!(
                "server.mind_up.refusal.round_over_record_round_started",
                round = &open.number,
                next = open.number + 1,
                what = what()
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

/// The round being played: the last one started.
pub(super) fn current(rounds: &mut [Round]) -> &mut Round {
    let last = rounds.len() - 1;
    &mut rounds[last]
}
