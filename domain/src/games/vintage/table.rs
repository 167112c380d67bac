//! A game recorded turn by turn: showcases, collections, the discard pile and the deck, with
//! every move checked against the rules (rules: Setup, A turn, End of the game).
//!
//! Each check builds a plan from the state as it is and only then is the plan applied, so a
//! refused event leaves the table untouched.

use super::catalogue::{CARDS, CardNo, Naming};
use super::events::{PlayerCards, Take, TurnTaken};
use super::piles::{Pile, Piles};
use crate::error::RuleError;
use crate::message::Message;
use crate::score::said_names;
use crate::setup::Player;

/// Where a card on the table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Showcase(usize),
    Collection(usize),
    DiscardPile,
    /// In the deck made of the reshuffled discard pile (5–6 players).
    ReshuffledDeck,
}

/// The face-down deck. The original deck's cards are unknown until drawn, so only its size is
/// kept; the reshuffled deck is the old discard pile, whose cards are all known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deck {
    Original { left: usize },
    Reshuffled { cards: Vec<CardNo> },
}

impl Deck {
    pub fn left(&self) -> usize {
        match self {
            Deck::Original { left } => *left,
            Deck::Reshuffled { cards } => cards.len(),
        }
    }
}

/// A game's table. Cards are kept as their numbers in the game's catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    piles: Piles,
    pub deck: Deck,
    /// Turns taken. Seats take them in turn from seat 1, so whose each was follows.
    pub turns: usize,
    /// The card the last turn stole, if it stole: its player may not bank it at the end.
    pub last_stolen: Option<CardNo>,
    /// `final_banked` was recorded: the game is over.
    pub final_banked: bool,
}

/// rules: Setup — 1 card to seat 1, 2 to seat 2, 3 to every other seat.
pub fn dealt_to(seat: usize) -> usize {
    (seat + 1).min(3)
}

/// A checked turn, ready to apply.
pub struct TurnPlan {
    seat: usize,
    banked: CardNo,
    /// `(victim seat, card)` for a steal.
    stolen: Option<(usize, CardNo)>,
    dug: Option<CardNo>,
    kept: Option<CardNo>,
    discard: Vec<CardNo>,
    deck: Deck,
}

impl Table {
    /// rules: Setup — checks the dealt showcases and lays out the table.
    pub fn deal(
        dealt: &[PlayerCards],
        players: &[Player],
        naming: &mut Naming,
    ) -> Result<Table, RuleError> {
        let mut showcases: Vec<Vec<CardNo>> = Vec::with_capacity(players.len());
        for (seat, (player, given)) in players.iter().zip(dealt).enumerate() {
            let size = dealt_to(seat);
            if given.cards.len() != size {
                return Err(RuleError::said(
                    &given.at,
                    crate::said!(
                        "server.vintage.refusal.sits_seat_dealt_card_not",
                        name = &player.name,
                        seat = &player.seat,
                        size = size,
                        cards = given.cards.len()
                    ),
                ));
            }
            let mut showcase = Vec::with_capacity(size);
            for (i, card) in given.cards.iter().enumerate() {
                let at = format!("{}/{i}", given.at);
                let no = naming.resolve(card).map_err(|e| e.within(&at))?;
                if let Some(holder) = showcases
                    .iter()
                    .chain(std::iter::once(&showcase))
                    .position(|s| s.contains(&no))
                {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.card_dealt_twice_already_showcase",
                            id = naming.id(no),
                            name = &players[holder].name
                        ),
                    ));
                }
                showcase.push(no);
            }
            showcases.push(showcase);
        }
        let dealt: usize = showcases.iter().map(Vec::len).sum();
        Ok(Table {
            piles: Piles::dealt(&showcases),
            deck: Deck::Original {
                left: CARDS - dealt,
            },
            turns: 0,
            last_stolen: None,
            final_banked: false,
        })
    }

    /// The seats at the table.
    pub fn seats(&self) -> usize {
        self.piles.seats()
    }

    pub fn showcase(&self, seat: usize) -> &[CardNo] {
        self.piles.get(Pile::Showcase(seat))
    }

    pub fn collection(&self, seat: usize) -> &[CardNo] {
        self.piles.get(Pile::Collection(seat))
    }

    pub fn discard(&self) -> &[CardNo] {
        self.piles.get(Pile::Discard)
    }

    /// For a test: a pile no legal log leaves.
    #[cfg(test)]
    pub(super) fn replace_discard(&mut self, cards: &[CardNo]) {
        self.piles.replace(Pile::Discard, cards);
    }

    pub fn place_of(&self, id: CardNo) -> Option<Place> {
        match self.piles.holding(id) {
            Some(Pile::Showcase(seat)) => Some(Place::Showcase(seat)),
            Some(Pile::Collection(seat)) => Some(Place::Collection(seat)),
            Some(Pile::Discard) => Some(Place::DiscardPile),
            None => match &self.deck {
                Deck::Reshuffled { cards } if cards.contains(&id) => Some(Place::ReshuffledDeck),
                _ => None,
            },
        }
    }

    fn is_reshuffled(&self) -> bool {
        matches!(self.deck, Deck::Reshuffled { .. })
    }

    /// rules: End of the game — 3–4 players: after the turn that leaves fewer than 2 cards in
    /// the deck; 5–6 players: the same, but only once the discard pile has been reshuffled.
    pub fn must_end(&self) -> bool {
        self.deck.left() < 2 && (self.seats() <= 4 || self.is_reshuffled())
    }

    /// The seat whose turn it is, or `None` once no turn may be played.
    pub fn next_seat(&self) -> Option<usize> {
        if self.must_end() {
            None
        } else {
            Some(self.turns % self.seats())
        }
    }

    fn turns_of(&self, seat: usize) -> usize {
        let seats = self.seats();
        self.turns / seats + usize::from(seat < self.turns % seats)
    }

    /// The seat of the last turn taken.
    fn last_seat(&self) -> Option<usize> {
        self.turns.checked_sub(1).map(|t| t % self.seats())
    }

    /// Checks one turn against the rules and plans it.
    pub fn plan_turn(
        &self,
        turn: &TurnTaken,
        players: &[Player],
        naming: &mut Naming,
    ) -> Result<TurnPlan, RuleError> {
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        let seat_of = |name: &str, at: &str| {
            crate::setup::seat_named(players, name).ok_or_else(|| {
                RuleError::said(
                    at,
                    crate::said!(
                        "server.vintage.refusal.does_not_play_this_game",
                        name = format!("{:?}", name),
                        players = said_names(&names)
                    ),
                )
            })
        };
        let Some(expected) = self.next_seat() else {
            return Err(RuleError::said(
                "",
                crate::said!(
                    "server.vintage.refusal.no_more_turns_turn_left",
                    turns = self.turns,
                    left = self.deck.left()
                ),
            ));
        };
        let seat = seat_of(&turn.player, "/player")?;
        let name = names[seat];
        if seat != expected {
            return Err(RuleError::said(
                "/player",
                crate::said!(
                    "server.vintage.refusal.turn_turn_not_turns_go",
                    expected = names[expected],
                    turn = self.turns + 1,
                    name = name
                ),
            ));
        }
        let where_is = |no: CardNo| self.describe_place(no, players);

        // 1. Bank one card from your own showcase (compulsory).
        let banked = naming
            .resolve(&turn.banked)
            .map_err(|e| e.within("/banked"))?;
        if self.place_of(banked) != Some(Place::Showcase(seat)) {
            return Err(RuleError::said(
                "/banked",
                crate::said!(
                    "server.vintage.refusal.cannot_bank_player_banks_card",
                    name = name,
                    banked = naming.id(banked),
                    place = where_is(banked)
                ),
            ));
        }

        // 2. Take one: steal from another showcase, or dig the top of the discard pile.
        let mut pile = self.discard().to_vec();
        let (stolen, dug) = match &turn.take {
            Take::Steal { from, card } => {
                let victim = seat_of(from, "/steal/from")?;
                if victim == seat {
                    return Err(RuleError::said(
                        "/steal/from",
                        crate::said!(
                            "server.vintage.refusal.cannot_steal_from_their_own",
                            name = name
                        ),
                    ));
                }
                let card = naming.resolve(card).map_err(|e| e.within("/steal/card"))?;
                if self.place_of(card) != Some(Place::Showcase(victim)) {
                    return Err(RuleError::said(
                        "/steal/card",
                        crate::said!(
                            "server.vintage.refusal.cannot_steal_from",
                            name = name,
                            card = naming.id(card),
                            from = from,
                            place = where_is(card)
                        ),
                    ));
                }
                // rules: a showcase holding exactly one card cannot be stolen from.
                if self.showcase(victim).len() == 1 {
                    return Err(RuleError::said(
                        "/steal/card",
                        crate::said!(
                            "server.vintage.refusal.cannot_steal_only_card_showcase",
                            name = name,
                            card = naming.id(card),
                            from = from
                        ),
                    ));
                }
                (Some((victim, card)), None)
            }
            Take::Dig(card) => {
                // rules: seat 1 may not dig on the first turn of the game.
                if self.turns == 0 {
                    return Err(RuleError::said(
                        "/dig",
                        crate::said!("server.vintage.refusal.may_not_dig_first_turn", name = name),
                    ));
                }
                let card = naming.resolve(card).map_err(|e| e.within("/dig"))?;
                match pile.last() {
                    None => {
                        return Err(RuleError::said(
                            "/dig",
                            crate::said!(
                                "server.vintage.refusal.cannot_dig_discard_pile_empty",
                                name = name,
                                card = naming.id(card)
                            ),
                        ));
                    }
                    Some(top) if *top != card => {
                        return Err(RuleError::said(
                            "/dig",
                            crate::said!(
                                "server.vintage.refusal.can_dig_only_top_card",
                                name = name,
                                top = naming.id(*top),
                                card = naming.id(card),
                                place = where_is(card)
                            ),
                        ));
                    }
                    Some(_) => {}
                }
                pile.pop();
                (None, Some(card))
            }
        };

        // 3. Draw two, keep one, discard the other.
        let (drawn, deck, mut discard) = self.plan_draw(turn, name, pile, naming, players)?;
        let kept = match (&turn.kept, drawn.is_empty()) {
            (None, true) => None,
            (Some(_), true) => {
                return Err(RuleError::said(
                    "/kept",
                    crate::said!("server.vintage.refusal.drew_no_card_so_there", name = name),
                ));
            }
            (None, false) => {
                return Err(RuleError::said(
                    "/kept",
                    crate::said!(
                        "server.vintage.refusal.keeps_one_drawn_cards_give",
                        name = name
                    ),
                ));
            }
            (Some(kept), false) => {
                let kept = naming.resolve(kept).map_err(|e| e.within("/kept"))?;
                if !drawn.contains(&kept) {
                    return Err(RuleError::said(
                        "/kept",
                        crate::said!(
                            "server.vintage.refusal.kept_but_drew_kept_card",
                            name = name,
                            kept = naming.id(kept),
                            drawn = said_names(&naming.ids(&drawn))
                        ),
                    ));
                }
                Some(kept)
            }
        };
        // rules: the card not kept goes on top of the discard pile.
        discard.extend(drawn.iter().filter(|c| Some(**c) != kept));
        Ok(TurnPlan {
            seat,
            banked,
            stolen,
            dug,
            kept,
            discard,
            deck,
        })
    }

    /// The draw of a turn: which cards may be drawn from where, and the deck and discard pile
    /// (before the discarded card) it leaves. `pile` is the discard pile after this turn's dig.
    fn plan_draw(
        &self,
        turn: &TurnTaken,
        name: &str,
        pile: Vec<CardNo>,
        naming: &mut Naming,
        players: &[Player],
    ) -> Result<(Vec<CardNo>, Deck, Vec<CardNo>), RuleError> {
        // From the original deck come `new` unseen cards; the rest from `reshuffled`.
        let (new, reshuffled, discard): (usize, Option<Vec<CardNo>>, Vec<CardNo>) = match &self.deck
        {
            Deck::Original { left } if *left >= 2 => (2, None, pile),
            // rules: 5–6 players — the draw takes what the deck still holds, the discard
            // pile is shuffled into a new deck and the rest is drawn from it.
            Deck::Original { left } => (*left, Some(pile), Vec::new()),
            Deck::Reshuffled { cards } => (0, Some(cards.clone()), pile),
        };
        let from_pile = reshuffled.as_ref().map_or(0, Vec::len);
        let expected = 2.min(new + from_pile);
        if turn.drawn.len() != expected {
            let drawn = turn.drawn.len();
            let rule = if expected == 2 {
                crate::said!(
                    "server.vintage.refusal.draws_two",
                    name = name,
                    drawn = drawn
                )
            } else {
                crate::said!(
                    "server.vintage.refusal.draws_what_was_left",
                    left = expected,
                    name = name,
                    drawn = drawn
                )
            };
            return Err(RuleError::said("/drawn", rule));
        }
        let mut drawn: Vec<CardNo> = Vec::with_capacity(2);
        let mut drawn_new = 0;
        let mut rest = reshuffled.clone().unwrap_or_default();
        for (i, card) in turn.drawn.iter().enumerate() {
            let at = format!("/drawn/{i}");
            let no = naming.resolve(card).map_err(|e| e.within(&at))?;
            if drawn.contains(&no) {
                return Err(RuleError::said(
                    at,
                    crate::said!(
                        "server.vintage.refusal.drawn_twice_card_can_one",
                        id = naming.id(no)
                    ),
                ));
            }
            if let Some(pos) = rest.iter().position(|c| *c == no) {
                rest.swap_remove(pos);
            } else if self.place_of(no).is_none() && drawn_new < new {
                drawn_new += 1;
            } else {
                let source = match (&self.deck, new) {
                    (Deck::Original { .. }, 2) => {
                        crate::said!("server.vintage.source.from_the_deck")
                    }
                    (Deck::Original { .. }, _) if self.place_of(no).is_none() => {
                        crate::said!("server.vintage.source.deck_held_only", new = new)
                    }
                    _ => crate::said!("server.vintage.source.after_the_reshuffle"),
                };
                let place = match self.place_of(no) {
                    None => crate::said!("server.vintage.place.never_seen"),
                    Some(_) => self.describe_place(no, players),
                };
                return Err(RuleError::said(
                    at,
                    crate::said!(
                        "server.vintage.refusal.cannot_draw",
                        name = name,
                        id = naming.id(no),
                        place = place,
                        source = source
                    ),
                ));
            }
            drawn.push(no);
        }
        if drawn_new < new {
            return Err(RuleError::said(
                "/drawn",
                crate::said!(
                    "server.vintage.refusal.deck_still_held_card_they",
                    new = new,
                    name = name,
                    drawn_new = drawn_new
                ),
            ));
        }
        let deck = match reshuffled {
            None => Deck::Original {
                left: self.deck.left() - 2,
            },
            Some(_) => Deck::Reshuffled { cards: rest },
        };
        Ok((drawn, deck, discard))
    }

    pub fn apply_turn(&mut self, plan: TurnPlan) {
        let seat = plan.seat;
        let piles = &mut self.piles;
        piles.take_out(Pile::Showcase(seat), plan.banked);
        piles.push(Pile::Collection(seat), plan.banked);
        self.last_stolen = None;
        if let Some((victim, card)) = plan.stolen {
            piles.take_out(Pile::Showcase(victim), card);
            piles.push(Pile::Showcase(seat), card);
            self.last_stolen = Some(card);
        }
        for card in plan.dug.into_iter().chain(plan.kept) {
            piles.push(Pile::Showcase(seat), card);
        }
        piles.replace(Pile::Discard, &plan.discard);
        self.deck = plan.deck;
        self.turns += 1;
    }

    /// rules: End of the game — starting left of the last player, everyone banks one more
    /// showcase card (not the card the last player stole on their final turn); players who had
    /// one turn fewer may bank a second one, if their showcase allows, or decline it. Returns
    /// the cards banked, per seat.
    pub fn plan_final_bank(
        &self,
        banked: &[PlayerCards],
        players: &[Player],
        naming: &mut Naming,
    ) -> Result<Vec<Vec<CardNo>>, RuleError> {
        if !self.must_end() {
            let said = if matches!(self.deck, Deck::Original { left } if left < 2) {
                crate::said!(
                    "server.vintage.refusal.game_not_over_deck_still_and_pile",
                    left = self.deck.left()
                )
            } else {
                crate::said!(
                    "server.vintage.refusal.game_not_over_deck_still",
                    left = self.deck.left()
                )
            };
            return Err(RuleError::said("", said));
        }
        let most_turns = (0..players.len())
            .map(|s| self.turns_of(s))
            .max()
            .unwrap_or(0);
        let mut plan = Vec::with_capacity(players.len());
        for (seat, (player, given)) in players.iter().zip(banked).enumerate() {
            let name = &player.name;
            let turns = self.turns_of(seat);
            let off_limits = self.last_stolen.filter(|_| self.last_seat() == Some(seat));
            let bankable = self
                .showcase(seat)
                .iter()
                .filter(|c| Some(**c) != off_limits)
                .count();
            let bank = FinalBank {
                name,
                turns,
                catch_up: turns < most_turns,
                bankable,
                off_limits: off_limits.map(|no| naming.id(no)),
            };
            if let Some(rule) = bank.refuses(given.cards.len()) {
                return Err(RuleError::said(given.at.as_str(), rule));
            }
            let mut cards: Vec<CardNo> = Vec::with_capacity(given.cards.len());
            for (i, card) in given.cards.iter().enumerate() {
                let at = format!("{}/{i}", given.at);
                let no = naming.resolve(card).map_err(|e| e.within(&at))?;
                if cards.contains(&no) {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.banked_twice_card_can_one",
                            id = naming.id(no)
                        ),
                    ));
                }
                if self.place_of(no) != Some(Place::Showcase(seat)) {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.cannot_bank_player_banks_card_2",
                            name = name,
                            id = naming.id(no),
                            place = self.describe_place(no, players)
                        ),
                    ));
                }
                if Some(no) == off_limits {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.stole_last_turn_game_may",
                            name = name,
                            id = naming.id(no)
                        ),
                    ));
                }
                cards.push(no);
            }
            plan.push(cards);
        }
        Ok(plan)
    }

    pub fn apply_final_bank(&mut self, banked: Vec<Vec<CardNo>>) {
        for (seat, cards) in banked.into_iter().enumerate() {
            for card in cards {
                self.piles.take_out(Pile::Showcase(seat), card);
                self.piles.push(Pile::Collection(seat), card);
            }
        }
        self.final_banked = true;
    }

    /// The seats in the order of the final bank: starting left of the last player.
    pub fn final_bank_order(&self) -> Vec<usize> {
        let n = self.seats();
        let first = self.last_seat().map_or(0, |seat| seat + 1);
        (0..n).map(|i| (first + i) % n).collect()
    }

    /// "in Bo's showcase", for messages.
    pub fn describe_place(&self, id: CardNo, players: &[Player]) -> Message {
        let name = |seat: usize| players.get(seat).map_or("?", |p| p.name.as_str());
        match self.place_of(id) {
            Some(Place::Showcase(seat)) => {
                crate::said!("server.vintage.place.showcase", name = name(seat))
            }
            Some(Place::Collection(seat)) => {
                crate::said!("server.vintage.place.collection", name = name(seat))
            }
            Some(Place::DiscardPile) => crate::said!("server.vintage.place.discard_pile"),
            Some(Place::ReshuffledDeck) => crate::said!("server.vintage.place.reshuffled_deck"),
            None => crate::said!("server.vintage.place.not_on_the_table"),
        }
    }
}

/// One player's share of the final bank, to check how many cards they bank.
struct FinalBank<'a> {
    name: &'a str,
    turns: usize,
    /// Had one turn fewer than others: may bank a second card.
    catch_up: bool,
    /// Showcase cards the player may bank (not the card stolen on the last turn).
    bankable: usize,
    off_limits: Option<&'a str>,
}

impl FinalBank<'_> {
    /// rules: everyone banks one card (none only if nothing is left to bank); a player who had
    /// one turn fewer "can, if possible, add one more card" — one or two, the second optional.
    /// Returns the rule broken by banking `count` cards, if any.
    fn refuses(&self, count: usize) -> Option<Message> {
        let FinalBank { name, turns, .. } = *self;
        let allowed = if self.catch_up { 2 } else { 1 };
        let (fewest, most) = (1.min(self.bankable), allowed.min(self.bankable));
        if (fewest..=most).contains(&count) {
            return None;
        }
        Some(match (self.bankable, self.catch_up) {
            (0, _) => match self.off_limits {
                Some(stolen) => crate::said!(
                    "server.vintage.refusal.bank_only_stolen_card",
                    name = name,
                    card = stolen,
                    count = count
                ),
                None => crate::said!(
                    "server.vintage.refusal.bank_empty_showcase",
                    name = name,
                    count = count
                ),
            },
            (_, false) if count == 0 => {
                crate::said!("server.vintage.refusal.bank_one_not_none", name = name)
            }
            (_, false) => crate::said!(
                "server.vintage.refusal.bank_one_not_more",
                name = name,
                count = count
            ),
            (_, true) if count == 0 => {
                crate::said!(
                    "server.vintage.refusal.bank_one_second_optional",
                    name = name
                )
            }
            (1, true) => crate::said!(
                "server.vintage.refusal.bank_second_but_showcase_holds_one",
                name = name,
                turns = turns,
                count = count
            ),
            (_, true) => crate::said!(
                "server.vintage.refusal.bank_one_or_two",
                name = name,
                turns = turns,
                count = count
            ),
        })
    }
}
