//! The 60 number cards of Mind Up!: colour and bubble of every number (rules: Cards table),
//! and the `cards` option that replaces entries for another printing.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::error::RuleError;
use crate::pointer::pointer;

/// Cards are numbered 1 to 60.
pub const LOWEST: i64 = 1;
pub const HIGHEST: i64 = 60;
pub const CARDS: usize = 60;

/// A card's number, 1–60.
pub type Number = u8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    Orange,
    Pink,
    Blue,
    Green,
    Purple,
}

impl Colour {
    pub const ALL: [Colour; 5] = [
        Colour::Orange,
        Colour::Pink,
        Colour::Blue,
        Colour::Green,
        Colour::Purple,
    ];

    /// The colour's name as used in events and breakdown lines.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Orange => "orange",
            Colour::Pink => "pink",
            Colour::Blue => "blue",
            Colour::Green => "green",
            Colour::Purple => "purple",
        }
    }

    /// The colour's name in the catalogues' words.
    pub fn said(self) -> crate::message::Message {
        match self {
            Colour::Orange => crate::said!("server.mind_up.colour.orange"),
            Colour::Pink => crate::said!("server.mind_up.colour.pink"),
            Colour::Blue => crate::said!("server.mind_up.colour.blue"),
            Colour::Green => crate::said!("server.mind_up.colour.green"),
            Colour::Purple => crate::said!("server.mind_up.colour.purple"),
        }
    }

    pub fn parse(name: &str) -> Option<Colour> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// One number card: its colour and its bubble (−1 malus, 0 none, +1/+2 bonus).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Card {
    pub number: Number,
    pub colour: Colour,
    pub bubble: i64,
}

use Colour::{Blue as B, Green as G, Orange as O, Pink as P, Purple as U};

/// rules: the printed table, cards 1 to 60 in order.
#[rustfmt::skip]
const PRINTED: [(Colour, i64); CARDS] = [
    (O, -1), (P, 0), (B, 1), (G, 2), (G, 1), (P, 0), // 1–6
    (U, -1), (O, 0), (U, 1), (P, 2), (U, 1), (G, 0), // 7–12
    (B, -1), (G, 0), (O, 1), (O, 2), (G, 1), (B, 0), // 13–18
    (P, -1), (U, 0), (B, 1), (U, 2), (O, 1), (B, 0), // 19–24
    (G, -1), (U, 0), (P, 1), (B, 2), (P, 1), (O, 0), // 25–30
    (O, 0), (P, 1), (B, 2), (P, 1), (U, 0), (G, -1), // 31–36
    (B, 0), (O, 1), (U, 2), (B, 1), (U, 0), (P, -1), // 37–42
    (B, 0), (G, 1), (O, 2), (O, 1), (G, 0), (B, -1), // 43–48
    (G, 0), (U, 1), (P, 2), (U, 1), (O, 0), (U, -1), // 49–54
    (P, 0), (G, 1), (G, 2), (B, 1), (P, 0), (O, -1), // 55–60
];

/// One entry of the `cards` option: a number whose printed colour or bubble differs.
/// Kept loose (plain numbers and a colour name) so a bad entry gets a rule error naming it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardOverride {
    pub number: i64,
    pub colour: String,
    pub bubble: i64,
}

/// The printed table as cards, made once at compile time: a game without overrides plays these
/// and holds no copy of its own (a held game keeps its catalogue between appends).
static PRINTED_CARDS: [Card; CARDS] = {
    let mut cards = [Card {
        number: 0,
        colour: Colour::Orange,
        bubble: 0,
    }; CARDS];
    let mut i = 0;
    while i < CARDS {
        cards[i] = Card {
            number: i as Number + 1,
            colour: PRINTED[i].0,
            bubble: PRINTED[i].1,
        };
        i += 1;
    }
    cards
};

/// The cards of one game: the printed table with the game's overrides applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalogue {
    cards: Cow<'static, [Card]>,
}

impl Catalogue {
    /// The cards as printed in the rules' table.
    pub fn printed() -> Self {
        Self {
            cards: Cow::Borrowed(&PRINTED_CARDS),
        }
    }

    /// The printed cards with `overrides` applied; the overrides must have passed
    /// [`check_overrides`] (entries that do not are skipped).
    pub fn with_overrides(overrides: &[CardOverride]) -> Self {
        let mut catalogue = Self::printed();
        for entry in overrides {
            let Some(colour) = Colour::parse(&entry.colour) else {
                continue;
            };
            if (LOWEST..=HIGHEST).contains(&entry.number) {
                catalogue.cards.to_mut()[entry.number as usize - 1] = Card {
                    number: entry.number as Number,
                    colour,
                    bubble: entry.bubble,
                };
            }
        }
        catalogue
    }

    /// The card with this number; numbers are checked to be 1–60 when events are parsed.
    pub fn card(&self, number: Number) -> Card {
        self.cards[usize::from(number).clamp(1, CARDS) - 1]
    }

    pub fn colour(&self, number: Number) -> Colour {
        self.card(number).colour
    }

    pub fn bubble(&self, number: Number) -> i64 {
        self.card(number).bubble
    }

    pub fn cards(&self) -> &[Card] {
        &self.cards
    }
}

/// Checks the `cards` option: numbers 1–60, each once; known colours; bubbles −1 to +2.
/// Pointers are relative to the creation request (`/options/cards/…`).
pub fn check_overrides(overrides: &[CardOverride]) -> Result<(), RuleError> {
    let colours = Colour::ALL.map(Colour::name).join(", ");
    for (i, entry) in overrides.iter().enumerate() {
        let at = |field: &str| pointer(["options", "cards", &i.to_string(), field]);
        if !(LOWEST..=HIGHEST).contains(&entry.number) {
            return Err(RuleError::said(
                at("number"),
                crate::said!(
                    "server.mind_up.refusal.card_does_not_exist_mind",
                    number = &entry.number
                ),
            ));
        }
        if let Some(earlier) = overrides[..i].iter().position(|e| e.number == entry.number) {
            return Err(RuleError::said(
                at("number"),
                crate::said!(
                    "server.mind_up.refusal.card_overridden_twice_entries_give",
                    number = &entry.number,
                    earlier = earlier,
                    later = i
                ),
            ));
        }
        if Colour::parse(&entry.colour).is_none() {
            return Err(RuleError::said(
                at("colour"),
                crate::said!(
                    "server.mind_up.refusal.card_cannot_colours_are",
                    number = &entry.number,
                    colour = format!("{:?}", entry.colour),
                    colours = colours
                ),
            ));
        }
        if !(-1..=2).contains(&entry.bubble) {
            return Err(RuleError::said(
                at("bubble"),
                crate::said!(
                    "server.mind_up.refusal.card_cannot_have_bubble_bubble",
                    number = &entry.number,
                    bubble = &entry.bubble
                ),
            ));
        }
    }
    Ok(())
}

/// Appends a bubble as printed to `out`: "+2", "0", "−1".
pub fn push_signed(out: &mut String, points: i64) {
    match points {
        p if p > 0 => {
            out.push('+');
            push_int(out, p);
        }
        p if p < 0 => {
            out.push('−');
            push_int(out, -p);
        }
        _ => out.push('0'),
    }
}

/// Appends `n` in decimal to `out`, as `format!("{n}")` writes it.
pub fn push_int(out: &mut String, n: i64) {
    if (0..10).contains(&n) {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    if (10..100).contains(&n) {
        out.push(char::from(b'0' + (n / 10) as u8));
        out.push(char::from(b'0' + (n % 10) as u8));
        return;
    }
    if n < 0 {
        out.push('-');
    }
    let mut rest = n.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of_colour(colour: Colour) -> Vec<Card> {
        Catalogue::printed()
            .cards()
            .iter()
            .copied()
            .filter(|c| c.colour == colour)
            .collect()
    }

    #[test]
    fn every_colour_has_twelve_cards() {
        for colour in Colour::ALL {
            assert_eq!(of_colour(colour).len(), 12, "{}", colour.name());
        }
    }

    #[test]
    fn every_colour_has_two_maluses_four_blanks_four_plus_ones_and_two_plus_twos() {
        for colour in Colour::ALL {
            let cards = of_colour(colour);
            let count = |b: i64| cards.iter().filter(|c| c.bubble == b).count();
            assert_eq!(
                [count(-1), count(0), count(1), count(2)],
                [2, 4, 4, 2],
                "{}",
                colour.name()
            );
        }
    }

    #[test]
    fn card_n_and_card_61_minus_n_carry_the_same_bubble() {
        let catalogue = Catalogue::printed();
        for n in 1..=60u8 {
            assert_eq!(catalogue.bubble(n), catalogue.bubble(61 - n), "card {n}");
        }
    }

    #[test]
    fn the_printed_table_reads_as_in_the_rules() {
        // Spot checks against the rules' table, one per column of it.
        let c = Catalogue::printed();
        assert_eq!((c.colour(1), c.bubble(1)), (Colour::Orange, -1));
        assert_eq!((c.colour(22), c.bubble(22)), (Colour::Purple, 2));
        assert_eq!((c.colour(33), c.bubble(33)), (Colour::Blue, 2));
        assert_eq!((c.colour(44), c.bubble(44)), (Colour::Green, 1));
        assert_eq!((c.colour(59), c.bubble(59)), (Colour::Pink, 0));
        assert_eq!(c.card(60).number, 60);
    }

    #[test]
    fn an_override_replaces_only_its_number() {
        let c = Catalogue::with_overrides(&[CardOverride {
            number: 12,
            colour: "pink".into(),
            bubble: 2,
        }]);
        assert_eq!((c.colour(12), c.bubble(12)), (Colour::Pink, 2));
        assert_eq!(c.cards()[..11], Catalogue::printed().cards()[..11]);
        assert_eq!(c.cards()[12..], Catalogue::printed().cards()[12..]);
    }
}
