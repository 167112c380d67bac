//! The Danger cards of Mint Condition and how many copies exist (rules: Cards table).

use crate::setup::Player;

/// A kind of Danger card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    AnimalKingdom,
    Autographed,
    BeCareful,
    FineWine,
    HeavyRotation,
    LegacyEdition,
    LostPieces,
    Memories,
    SnackFingers,
    SleeveMeUp,
    SmokingKills,
}

/// Snack Fingers and Sleeve Me Up! share the 15 Danger cards whose split is unknown.
pub const SNACK_AND_SLEEVE_COPIES: u32 = 15;

impl Kind {
    pub const ALL: [Kind; 11] = [
        Kind::AnimalKingdom,
        Kind::Autographed,
        Kind::BeCareful,
        Kind::FineWine,
        Kind::HeavyRotation,
        Kind::LegacyEdition,
        Kind::LostPieces,
        Kind::Memories,
        Kind::SnackFingers,
        Kind::SleeveMeUp,
        Kind::SmokingKills,
    ];

    /// The card id used in events.
    pub fn id(self) -> &'static str {
        match self {
            Kind::AnimalKingdom => "animal-kingdom",
            Kind::Autographed => "autographed",
            Kind::BeCareful => "be-careful",
            Kind::FineWine => "fine-wine",
            Kind::HeavyRotation => "heavy-rotation",
            Kind::LegacyEdition => "legacy-edition",
            Kind::LostPieces => "lost-pieces",
            Kind::Memories => "memories",
            Kind::SnackFingers => "snack-fingers",
            Kind::SleeveMeUp => "sleeve-me-up",
            Kind::SmokingKills => "smoking-kills",
        }
    }

    /// The printed name, used in breakdown lines.
    pub fn name(self) -> &'static str {
        match self {
            Kind::AnimalKingdom => "Animal Kingdom",
            Kind::Autographed => "Autographed",
            Kind::BeCareful => "Be Careful!",
            Kind::FineWine => "Fine Wine",
            Kind::HeavyRotation => "Heavy Rotation",
            Kind::LegacyEdition => "Legacy Edition",
            Kind::LostPieces => "Lost Pieces",
            Kind::Memories => "Memories",
            Kind::SnackFingers => "Snack Fingers",
            Kind::SleeveMeUp => "Sleeve Me Up!",
            Kind::SmokingKills => "Smoking Kills",
        }
    }

    pub fn parse(id: &str) -> Option<Kind> {
        Self::ALL.into_iter().find(|k| k.id() == id)
    }

    /// Copies in the box where the rules know them; Snack Fingers and Sleeve Me Up! are
    /// limited together by [`SNACK_AND_SLEEVE_COPIES`].
    pub fn copies(self) -> Option<u32> {
        match self {
            Kind::AnimalKingdom => Some(12),
            Kind::Autographed => Some(10),
            Kind::BeCareful => Some(15),
            Kind::FineWine => Some(6),
            Kind::HeavyRotation => Some(15),
            Kind::LegacyEdition => Some(6),
            Kind::LostPieces => Some(5),
            Kind::Memories => Some(12),
            Kind::SmokingKills => Some(5),
            Kind::SnackFingers | Kind::SleeveMeUp => None,
        }
    }

    /// Expert cards are refused unless the game enables `expert_cards`.
    pub fn is_expert(self) -> bool {
        self == Kind::SmokingKills
    }
}

/// One collected card as recorded: its kind, whose Lucky its printed symbol counts for, and
/// whether a Sleeve Me Up! protects it. Three bytes: a held game keeps every card it collected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub kind: Kind,
    pub lucky_for: LuckyFor,
    pub protected: bool,
}

/// The seats whose colour a card's printed symbol shows (rules, Lucky: "your colour or
/// rainbow"), read when the card is recorded: one bit a seat (Mint Condition seats five).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LuckyFor(u8);

impl LuckyFor {
    /// The seats a recorded symbol counts for: a rainbow counts for every seated colour, a
    /// colour for the seats of that colour (letter case aside); a seat without a colour never.
    pub fn symbol(symbol: &str, players: &[Player]) -> Self {
        let rainbow = symbol.eq_ignore_ascii_case("rainbow");
        let shows = |colour: &str| rainbow || colour.eq_ignore_ascii_case(symbol);
        let seats = players
            .iter()
            .take(8)
            .enumerate()
            .fold(0u8, |seats, (seat, player)| {
                if player.color.as_deref().is_some_and(shows) {
                    seats | 1 << seat
                } else {
                    seats
                }
            });
        Self(seats)
    }

    pub fn counts_for(self, seat: usize) -> bool {
        seat < 8 && self.0 & (1 << seat) != 0
    }
}

/// Every card id, for "unknown card" messages.
pub fn known_ids() -> String {
    Kind::ALL
        .iter()
        .map(|k| k.id())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_id_parses_back_to_its_kind() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.id()), Some(kind));
        }
        assert_eq!(Kind::parse("fine-whine"), None);
    }

    #[test]
    fn the_known_copies_add_up_to_81_of_96_danger_cards() {
        let known: u32 = Kind::ALL
            .iter()
            .filter(|k| !k.is_expert())
            .filter_map(|k| k.copies())
            .sum();
        assert_eq!(known, 81);
        assert_eq!(known + SNACK_AND_SLEEVE_COPIES, 96);
    }
}
