//! The cards face up on a Vintage table, in piles: each seat's showcase and collection, and the
//! discard pile (`table.rs` moves cards between them as the rules say).

use super::catalogue::CardNo;

/// A pile of cards face up on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pile {
    /// A seat's (0-based), oldest card first.
    Showcase(usize),
    /// A seat's, in the order banked.
    Collection(usize),
    /// Bottom first: the top card is the last.
    Discard,
}

/// Vintage seats 3 to 6 players.
const MOST_SEATS: usize = 6;

/// The cards face up on the table: every showcase, then every collection, then the discard
/// pile, one after the other in one list. A held game keeps it: one list, not one a pile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piles {
    cards: Vec<CardNo>,
    /// Where each pile ends in `cards`, in the order above.
    ends: [u16; 2 * MOST_SEATS + 1],
    seats: u8,
}

impl Piles {
    fn new(seats: usize) -> Self {
        Self {
            cards: Vec::new(),
            ends: [0; 2 * MOST_SEATS + 1],
            seats: u8::try_from(seats).expect("3 to 6 seats"),
        }
    }

    /// The table as dealt: a showcase for each seat, nothing else face up.
    pub fn dealt(showcases: &[Vec<CardNo>]) -> Self {
        let mut piles = Piles::new(showcases.len());
        for (seat, showcase) in showcases.iter().enumerate() {
            piles.replace(Pile::Showcase(seat), showcase);
        }
        piles.cards.shrink_to_fit();
        piles
    }

    pub fn seats(&self) -> usize {
        usize::from(self.seats)
    }

    fn index(&self, pile: Pile) -> usize {
        let seats = usize::from(self.seats);
        match pile {
            Pile::Showcase(seat) => seat,
            Pile::Collection(seat) => seats + seat,
            Pile::Discard => 2 * seats,
        }
    }

    fn range(&self, pile: Pile) -> std::ops::Range<usize> {
        let at = self.index(pile);
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        usize::from(start)..usize::from(self.ends[at])
    }

    pub fn get(&self, pile: Pile) -> &[CardNo] {
        &self.cards[self.range(pile)]
    }

    /// The pile holding `card`, if one does.
    pub fn holding(&self, card: CardNo) -> Option<Pile> {
        let at = self.cards.iter().position(|c| *c == card)?;
        let seats = usize::from(self.seats);
        let pile = self.ends.iter().position(|end| usize::from(*end) > at)?;
        Some(if pile < seats {
            Pile::Showcase(pile)
        } else if pile < 2 * seats {
            Pile::Collection(pile - seats)
        } else {
            Pile::Discard
        })
    }

    /// Puts `cards` in place of the pile's cards.
    pub fn replace(&mut self, pile: Pile, cards: &[CardNo]) {
        let range = self.range(pile);
        let (before, after) = (range.len(), cards.len());
        self.cards.splice(range, cards.iter().copied());
        self.moved(pile, |end| end + after - before);
    }

    /// Moves the ends of the pile and of every pile after it.
    fn moved(&mut self, pile: Pile, to: impl Fn(usize) -> usize) {
        let (at, piles) = (self.index(pile), 2 * usize::from(self.seats) + 1);
        for end in &mut self.ends[at..piles] {
            // A table's cards are distinct card numbers: two bytes hold their count.
            *end = u16::try_from(to(usize::from(*end))).expect("two-byte count");
        }
    }

    pub fn push(&mut self, pile: Pile, card: CardNo) {
        self.cards.insert(self.range(pile).end, card);
        self.moved(pile, |end| end + 1);
    }

    /// Takes `card` out of the pile, if it is there.
    pub fn take_out(&mut self, pile: Pile, card: CardNo) {
        let range = self.range(pile);
        if let Some(at) = self.cards[range.clone()].iter().position(|c| *c == card) {
            self.cards.remove(range.start + at);
            self.moved(pile, |end| end - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(numbers: &[u16]) -> Vec<CardNo> {
        numbers.iter().map(|n| CardNo::of(*n)).collect()
    }

    #[test]
    fn each_pile_keeps_its_cards_in_order_while_the_others_change_around_it() {
        let mut piles = Piles::new(3);
        piles.replace(Pile::Showcase(1), &cards(&[4, 5]));
        piles.replace(Pile::Showcase(0), &cards(&[1]));
        piles.push(Pile::Discard, CardNo::of(9));
        piles.push(Pile::Collection(2), CardNo::of(7));
        piles.push(Pile::Showcase(1), CardNo::of(6));
        piles.take_out(Pile::Showcase(1), CardNo::of(4));
        // Not in the pile: nothing changes.
        piles.take_out(Pile::Showcase(2), CardNo::of(1));
        assert_eq!(piles.get(Pile::Showcase(0)), cards(&[1]));
        assert_eq!(piles.get(Pile::Showcase(1)), cards(&[5, 6]));
        assert_eq!(piles.get(Pile::Showcase(2)), cards(&[]));
        assert_eq!(piles.get(Pile::Collection(0)), cards(&[]));
        assert_eq!(piles.get(Pile::Collection(2)), cards(&[7]));
        assert_eq!(piles.get(Pile::Discard), cards(&[9]));
        piles.replace(Pile::Showcase(0), &[]);
        assert_eq!(piles.get(Pile::Showcase(1)), cards(&[5, 6]));
        assert_eq!(piles.cards, cards(&[5, 6, 7, 9]));
        assert_eq!(piles.holding(CardNo::of(7)), Some(Pile::Collection(2)));
        assert_eq!(piles.holding(CardNo::of(9)), Some(Pile::Discard));
        assert_eq!(piles.holding(CardNo::of(5)), Some(Pile::Showcase(1)));
        assert_eq!(piles.holding(CardNo::of(1)), None);
    }
}
