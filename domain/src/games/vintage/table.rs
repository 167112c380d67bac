//! A game recorded turn by turn: showcases, collections, the discard pile and the deck, with
//! every move checked against the rules (rules: Setup, A turn, End of the game).
//!
//! Each check builds a plan from the state as it is and only then is the plan applied, so a
//! refused event leaves the table untouched.

use super::catalogue::{CARDS, Naming};
use super::events::{PlayerCards, Take, TurnTaken};
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
    Reshuffled { cards: Vec<String> },
}

impl Deck {
    pub fn left(&self) -> usize {
        match self {
            Deck::Original { left } => *left,
            Deck::Reshuffled { cards } => cards.len(),
        }
    }
}

/// One turn taken: whose, and the card stolen if any (the last player may not bank it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRecord {
    pub seat: usize,
    pub stolen: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Per seat (0-based), oldest card first.
    pub showcases: Vec<Vec<String>>,
    /// Per seat, in the order banked.
    pub collections: Vec<Vec<String>>,
    /// Bottom first: the top card is the last.
    pub discard: Vec<String>,
    pub deck: Deck,
    pub turns: Vec<TurnRecord>,
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
    banked: String,
    /// `(victim seat, card)` for a steal.
    stolen: Option<(usize, String)>,
    dug: Option<String>,
    kept: Option<String>,
    discard: Vec<String>,
    deck: Deck,
}

impl Table {
    /// rules: Setup — checks the dealt showcases and lays out the table.
    pub fn deal(
        dealt: &[PlayerCards],
        players: &[Player],
        naming: &mut Naming,
    ) -> Result<Table, RuleError> {
        let mut showcases: Vec<Vec<String>> = Vec::with_capacity(players.len());
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
                let id = naming.resolve(card).map_err(|e| e.within(&at))?;
                if let Some(holder) = showcases
                    .iter()
                    .chain(std::iter::once(&showcase))
                    .position(|s| s.contains(&id))
                {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.card_dealt_twice_already_showcase",
                            id = id,
                            name = &players[holder].name
                        ),
                    ));
                }
                showcase.push(id);
            }
            showcases.push(showcase);
        }
        let dealt: usize = showcases.iter().map(Vec::len).sum();
        Ok(Table {
            collections: vec![Vec::new(); players.len()],
            showcases,
            discard: Vec::new(),
            deck: Deck::Original {
                left: CARDS - dealt,
            },
            turns: Vec::new(),
            final_banked: false,
        })
    }

    pub fn place_of(&self, id: &str) -> Option<Place> {
        let held = |piles: &[Vec<String>]| piles.iter().position(|p| p.iter().any(|c| c == id));
        if let Some(seat) = held(&self.showcases) {
            return Some(Place::Showcase(seat));
        }
        if let Some(seat) = held(&self.collections) {
            return Some(Place::Collection(seat));
        }
        if self.discard.iter().any(|c| c == id) {
            return Some(Place::DiscardPile);
        }
        match &self.deck {
            Deck::Reshuffled { cards } if cards.iter().any(|c| c == id) => {
                Some(Place::ReshuffledDeck)
            }
            _ => None,
        }
    }

    fn is_reshuffled(&self) -> bool {
        matches!(self.deck, Deck::Reshuffled { .. })
    }

    /// rules: End of the game — 3–4 players: after the turn that leaves fewer than 2 cards in
    /// the deck; 5–6 players: the same, but only once the discard pile has been reshuffled.
    pub fn must_end(&self) -> bool {
        self.deck.left() < 2 && (self.showcases.len() <= 4 || self.is_reshuffled())
    }

    /// The seat whose turn it is, or `None` once no turn may be played.
    pub fn next_seat(&self) -> Option<usize> {
        if self.must_end() {
            None
        } else {
            Some(self.turns.len() % self.showcases.len())
        }
    }

    fn turns_of(&self, seat: usize) -> usize {
        self.turns.iter().filter(|t| t.seat == seat).count()
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
                    turns = self.turns.len(),
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
                    turn = self.turns.len() + 1,
                    name = name
                ),
            ));
        }
        let where_is = |id: &str| self.describe_place(id, players);

        // 1. Bank one card from your own showcase (compulsory).
        let banked = naming
            .resolve(&turn.banked)
            .map_err(|e| e.within("/banked"))?;
        if self.place_of(&banked) != Some(Place::Showcase(seat)) {
            return Err(RuleError::said(
                "/banked",
                crate::said!(
                    "server.vintage.refusal.cannot_bank_player_banks_card",
                    name = name,
                    banked = &banked,
                    place = where_is(&banked)
                ),
            ));
        }

        // 2. Take one: steal from another showcase, or dig the top of the discard pile.
        let mut pile = self.discard.clone();
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
                if self.place_of(&card) != Some(Place::Showcase(victim)) {
                    return Err(RuleError::said(
                        "/steal/card",
                        crate::said!(
                            "server.vintage.refusal.cannot_steal_from",
                            name = name,
                            card = &card,
                            from = from,
                            place = where_is(&card)
                        ),
                    ));
                }
                // rules: a showcase holding exactly one card cannot be stolen from.
                if self.showcases[victim].len() == 1 {
                    return Err(RuleError::said(
                        "/steal/card",
                        crate::said!(
                            "server.vintage.refusal.cannot_steal_only_card_showcase",
                            name = name,
                            card = card,
                            from = from
                        ),
                    ));
                }
                (Some((victim, card)), None)
            }
            Take::Dig(card) => {
                // rules: seat 1 may not dig on the first turn of the game.
                if self.turns.is_empty() {
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
                                card = card
                            ),
                        ));
                    }
                    Some(top) if *top != card => {
                        return Err(RuleError::said(
                            "/dig",
                            crate::said!(
                                "server.vintage.refusal.can_dig_only_top_card",
                                name = name,
                                top = top,
                                card = &card,
                                place = where_is(&card)
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
                            kept = kept,
                            drawn = said_names(&drawn)
                        ),
                    ));
                }
                Some(kept)
            }
        };
        // rules: the card not kept goes on top of the discard pile.
        discard.extend(drawn.iter().filter(|c| Some(*c) != kept.as_ref()).cloned());
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
        pile: Vec<String>,
        naming: &mut Naming,
        players: &[Player],
    ) -> Result<(Vec<String>, Deck, Vec<String>), RuleError> {
        // From the original deck come `new` unseen cards; the rest from `reshuffled`.
        let (new, reshuffled, discard): (usize, Option<Vec<String>>, Vec<String>) = match &self.deck
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
        let mut drawn: Vec<String> = Vec::with_capacity(2);
        let mut drawn_new = 0;
        let mut rest = reshuffled.clone().unwrap_or_default();
        for (i, card) in turn.drawn.iter().enumerate() {
            let at = format!("/drawn/{i}");
            let id = naming.resolve(card).map_err(|e| e.within(&at))?;
            if drawn.contains(&id) {
                return Err(RuleError::said(
                    at,
                    crate::said!("server.vintage.refusal.drawn_twice_card_can_one", id = id),
                ));
            }
            if let Some(pos) = rest.iter().position(|c| *c == id) {
                rest.swap_remove(pos);
            } else if self.place_of(&id).is_none() && drawn_new < new {
                drawn_new += 1;
            } else {
                let source = match (&self.deck, new) {
                    (Deck::Original { .. }, 2) => {
                        crate::said!("server.vintage.source.from_the_deck")
                    }
                    (Deck::Original { .. }, _) if self.place_of(&id).is_none() => {
                        crate::said!("server.vintage.source.deck_held_only", new = new)
                    }
                    _ => crate::said!("server.vintage.source.after_the_reshuffle"),
                };
                let place = match self.place_of(&id) {
                    None => crate::said!("server.vintage.place.never_seen"),
                    Some(_) => self.describe_place(&id, players),
                };
                return Err(RuleError::said(
                    at,
                    crate::said!(
                        "server.vintage.refusal.cannot_draw",
                        name = name,
                        id = id,
                        place = place,
                        source = source
                    ),
                ));
            }
            drawn.push(id);
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
        self.showcases[seat].retain(|c| *c != plan.banked);
        self.collections[seat].push(plan.banked);
        let mut stolen_card = None;
        if let Some((victim, card)) = plan.stolen {
            self.showcases[victim].retain(|c| *c != card);
            self.showcases[seat].push(card.clone());
            stolen_card = Some(card);
        }
        if let Some(card) = plan.dug {
            self.showcases[seat].push(card);
        }
        if let Some(card) = plan.kept {
            self.showcases[seat].push(card);
        }
        self.discard = plan.discard;
        self.deck = plan.deck;
        self.turns.push(TurnRecord {
            seat,
            stolen: stolen_card,
        });
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
    ) -> Result<Vec<Vec<String>>, RuleError> {
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
        let last = self.turns.last();
        let mut plan = Vec::with_capacity(players.len());
        for (seat, (player, given)) in players.iter().zip(banked).enumerate() {
            let name = &player.name;
            let turns = self.turns_of(seat);
            let off_limits = last
                .filter(|t| t.seat == seat)
                .and_then(|t| t.stolen.as_deref());
            let bankable = self.showcases[seat]
                .iter()
                .filter(|c| Some(c.as_str()) != off_limits)
                .count();
            let bank = FinalBank {
                name,
                turns,
                catch_up: turns < most_turns,
                bankable,
                off_limits,
            };
            if let Some(rule) = bank.refuses(given.cards.len()) {
                return Err(RuleError::said(given.at.as_str(), rule));
            }
            let mut cards: Vec<String> = Vec::with_capacity(given.cards.len());
            for (i, card) in given.cards.iter().enumerate() {
                let at = format!("{}/{i}", given.at);
                let id = naming.resolve(card).map_err(|e| e.within(&at))?;
                if cards.contains(&id) {
                    return Err(RuleError::said(
                        at,
                        crate::said!("server.vintage.refusal.banked_twice_card_can_one", id = id),
                    ));
                }
                if self.place_of(&id) != Some(Place::Showcase(seat)) {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.cannot_bank_player_banks_card_2",
                            name = name,
                            id = &id,
                            place = self.describe_place(&id, players)
                        ),
                    ));
                }
                if Some(id.as_str()) == off_limits {
                    return Err(RuleError::said(
                        at,
                        crate::said!(
                            "server.vintage.refusal.stole_last_turn_game_may",
                            name = name,
                            id = id
                        ),
                    ));
                }
                cards.push(id);
            }
            plan.push(cards);
        }
        Ok(plan)
    }

    pub fn apply_final_bank(&mut self, banked: Vec<Vec<String>>) {
        for (seat, cards) in banked.into_iter().enumerate() {
            self.showcases[seat].retain(|c| !cards.contains(c));
            self.collections[seat].extend(cards);
        }
        self.final_banked = true;
    }

    /// The seats in the order of the final bank: starting left of the last player.
    pub fn final_bank_order(&self) -> Vec<usize> {
        let n = self.showcases.len();
        let first = self.turns.last().map_or(0, |t| t.seat + 1);
        (0..n).map(|i| (first + i) % n).collect()
    }

    /// "in Bo's showcase", for messages.
    pub fn describe_place(&self, id: &str, players: &[Player]) -> Message {
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
