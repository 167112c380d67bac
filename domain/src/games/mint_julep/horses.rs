//! The five horses of Mint Julep, their start order and starting bonus (rules: Horses table).

/// One horse. The order of the variants is the start order, top (1st) first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Horse {
    AlaskanJustice,
    MapleSplendor,
    NewtonsApple,
    WhiskeyPrincess,
    YouGotMe,
}

impl Horse {
    /// Start order, top of the single starting group first.
    pub const ALL: [Horse; 5] = [
        Horse::AlaskanJustice,
        Horse::MapleSplendor,
        Horse::NewtonsApple,
        Horse::WhiskeyPrincess,
        Horse::YouGotMe,
    ];

    /// The horse id used in events.
    pub fn id(self) -> &'static str {
        match self {
            Horse::AlaskanJustice => "alaskan-justice",
            Horse::MapleSplendor => "maple-splendor",
            Horse::NewtonsApple => "newtons-apple",
            Horse::WhiskeyPrincess => "whiskey-princess",
            Horse::YouGotMe => "you-got-me",
        }
    }

    /// The printed name, used in messages and breakdown lines.
    pub fn name(self) -> &'static str {
        match self {
            Horse::AlaskanJustice => "Alaskan Justice",
            Horse::MapleSplendor => "Maple Splendor",
            Horse::NewtonsApple => "Newton's Apple",
            Horse::WhiskeyPrincess => "Whiskey Princess",
            Horse::YouGotMe => "You Got Me",
        }
    }

    /// rules: the further back a horse starts, the bigger its starting bonus.
    pub fn starting_bonus(self) -> i64 {
        match self {
            Horse::AlaskanJustice => 0,
            Horse::MapleSplendor | Horse::NewtonsApple => 1,
            Horse::WhiskeyPrincess | Horse::YouGotMe => 2,
        }
    }

    pub fn parse(id: &str) -> Option<Horse> {
        Self::ALL.into_iter().find(|h| h.id() == id)
    }

    /// Index into per-horse arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Every horse id, for "unknown horse" messages.
pub fn known_ids() -> String {
    Horse::ALL
        .iter()
        .map(|h| h.id())
        .collect::<Vec<_>>()
        .join(", ")
}

/// rules: place points 1st 3, 2nd 2, 3rd 1; 4th and 5th score nothing [D].
pub fn place_points(place: usize) -> i64 {
    match place {
        1 => 3,
        2 => 2,
        3 => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_horse_id_parses_back_to_its_horse() {
        for horse in Horse::ALL {
            assert_eq!(Horse::parse(horse.id()), Some(horse));
        }
        assert_eq!(Horse::parse("you-got-you"), None);
    }

    #[test]
    fn starting_bonuses_follow_the_rules_table() {
        let bonuses: Vec<i64> = Horse::ALL.iter().map(|h| h.starting_bonus()).collect();
        assert_eq!(bonuses, vec![0, 1, 1, 2, 2]);
    }

    #[test]
    fn only_the_first_three_places_score() {
        let points: Vec<i64> = (1..=5).map(place_points).collect();
        assert_eq!(points, vec![3, 2, 1, 0, 0]);
    }
}
