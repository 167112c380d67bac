//! The objectives variant: seven double-sided cards A–G, fourteen faces (rules: Objectives
//! variant). Every face is judged on the player's own row at round end; C1, C2 and E2 also
//! look at every other player's row.

use super::D1WithoutGreen;
use super::catalogue::{Catalogue, Colour, Number, push_int};
use crate::message::{Arg, Message};
use crate::said;

/// One face of an objective card, written as in events: "A1" … "G2".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Face {
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    D1,
    D2,
    E1,
    E2,
    F1,
    F2,
    G1,
    G2,
}

impl Face {
    pub const ALL: [Face; 14] = [
        Face::A1,
        Face::A2,
        Face::B1,
        Face::B2,
        Face::C1,
        Face::C2,
        Face::D1,
        Face::D2,
        Face::E1,
        Face::E2,
        Face::F1,
        Face::F2,
        Face::G1,
        Face::G2,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Face::A1 => "A1",
            Face::A2 => "A2",
            Face::B1 => "B1",
            Face::B2 => "B2",
            Face::C1 => "C1",
            Face::C2 => "C2",
            Face::D1 => "D1",
            Face::D2 => "D2",
            Face::E1 => "E1",
            Face::E2 => "E2",
            Face::F1 => "F1",
            Face::F2 => "F2",
            Face::G1 => "G1",
            Face::G2 => "G2",
        }
    }

    pub fn parse(code: &str) -> Option<Face> {
        Self::ALL.into_iter().find(|f| f.code() == code)
    }

    /// The card's letter: a card shows one face, so one letter is active once.
    pub fn letter(self) -> char {
        self.code().chars().next().unwrap_or('?')
    }

    /// rules: the points of the face when its condition holds.
    pub fn points(self) -> i64 {
        match self {
            Face::A2 | Face::C1 | Face::E2 | Face::G1 => -2,
            _ => 2,
        }
    }

    /// rules: the condition as printed in the table.
    pub fn condition(self) -> &'static str {
        match self {
            Face::A1 => "exactly 1 or 3 orange",
            Face::A2 => "orange present and its column's score card is 1 or 2",
            Face::B1 => "exactly 2 or 4 blue",
            Face::B2 => "no colour has more cards than blue",
            Face::C1 => "no player has fewer pink than you",
            Face::C2 => "no player has more pink than you",
            Face::D1 => "green present and no card to the right of the green column",
            Face::D2 => "green present and its column's score card is 4 or 5",
            Face::E1 => "purple count ≥ orange count",
            Face::E2 => "no player has more purple than you",
            Face::F1 => "all five colours present",
            Face::F2 => "exactly three colours present",
            Face::G1 => "some colour has exactly 3 cards",
            Face::G2 => "some colour has exactly 4 cards",
        }
    }

    /// The condition printed on the face, in the catalogues' words.
    pub fn condition_said(self) -> Message {
        match self {
            Face::A1 => said!("server.mind_up.objective.a1"),
            Face::A2 => said!("server.mind_up.objective.a2"),
            Face::B1 => said!("server.mind_up.objective.b1"),
            Face::B2 => said!("server.mind_up.objective.b2"),
            Face::C1 => said!("server.mind_up.objective.c1"),
            Face::C2 => said!("server.mind_up.objective.c2"),
            Face::D1 => said!("server.mind_up.objective.d1"),
            Face::D2 => said!("server.mind_up.objective.d2"),
            Face::E1 => said!("server.mind_up.objective.e1"),
            Face::E2 => said!("server.mind_up.objective.e2"),
            Face::F1 => said!("server.mind_up.objective.f1"),
            Face::F2 => said!("server.mind_up.objective.f2"),
            Face::G1 => said!("server.mind_up.objective.g1"),
            Face::G2 => said!("server.mind_up.objective.g2"),
        }
    }

    /// Judges the face for `me` among `everyone` (all rows of the round, `me` included);
    /// `d1_without_green` is the game's house rule for D1 on a row without green.
    /// Returns whether it holds and the facts a player checks it by.
    pub fn judge(
        self,
        me: &RowFacts,
        everyone: &[RowFacts],
        score_cards: &[u8; 5],
        d1_without_green: D1WithoutGreen,
    ) -> (bool, Message) {
        use Colour::{Blue, Green, Orange, Pink, Purple};
        let n = |c: Colour| me.count(c);
        let card_above = |c: Colour| me.column_of(c).map(|k| score_cards[k]);
        match self {
            Face::A1 => (
                matches!(n(Orange), 1 | 3),
                said!(
                    "server.mind_up.fact.count",
                    n = n(Orange),
                    colour = Orange.said()
                ),
            ),
            Face::A2 => column_fact(Orange, card_above(Orange), &[1, 2]),
            Face::B1 => (
                matches!(n(Blue), 2 | 4),
                said!(
                    "server.mind_up.fact.count",
                    n = n(Blue),
                    colour = Blue.said()
                ),
            ),
            Face::B2 => {
                let most = Colour::ALL.into_iter().map(n).max().unwrap_or(0);
                (
                    n(Blue) >= most,
                    said!(
                        "server.mind_up.fact.blue_and_largest",
                        n = n(Blue),
                        most = most
                    ),
                )
            }
            Face::C1 => compare(
                Pink,
                me,
                everyone,
                |mine, other| other >= mine,
                Extreme::Fewest,
            ),
            Face::C2 => compare(
                Pink,
                me,
                everyone,
                |mine, other| other <= mine,
                Extreme::Most,
            ),
            Face::D1 => match me.column_of(Green) {
                // rules [H] d1_without_green: the card does not say; naming the house rule
                // lets the line explain itself.
                None => match d1_without_green {
                    D1WithoutGreen::Nothing => {
                        (false, said!("server.mind_up.fact.no_green_nothing"))
                    }
                    D1WithoutGreen::Bonus => (true, said!("server.mind_up.fact.no_green_bonus")),
                },
                Some(k) => {
                    let right = me.used_columns.saturating_sub(k + 1);
                    let column = k as i64 + 1;
                    let fact = if right == 0 {
                        said!("server.mind_up.fact.green_nothing_right", column = column)
                    } else {
                        said!(
                            "server.mind_up.fact.green_columns_right",
                            column = column,
                            right = right
                        )
                    };
                    (right == 0, fact)
                }
            },
            Face::D2 => column_fact(Green, card_above(Green), &[4, 5]),
            Face::E1 => (
                n(Purple) >= n(Orange),
                said!(
                    "server.mind_up.fact.purple_and_orange",
                    purple = n(Purple),
                    orange = n(Orange)
                ),
            ),
            Face::E2 => compare(
                Purple,
                me,
                everyone,
                |mine, other| other <= mine,
                Extreme::Most,
            ),
            Face::F1 => (me.colours() == 5, colours_fact(me)),
            Face::F2 => (me.colours() == 3, colours_fact(me)),
            Face::G1 => size_fact(me, 3),
            Face::G2 => size_fact(me, 4),
        }
    }
}

/// F1 and F2: "{n} colours".
fn colours_fact(me: &RowFacts) -> Message {
    said!("server.mind_up.fact.colours", n = me.colours())
}

/// A2 and D2: the colour's column must sit under one of `cards`.
fn column_fact(colour: Colour, above: Option<u8>, cards: &[u8]) -> (bool, Message) {
    match above {
        None => (
            false,
            said!("server.mind_up.fact.no_colour", colour = colour.said()),
        ),
        Some(card) => (
            cards.contains(&card),
            said!(
                "server.mind_up.fact.under",
                colour = colour.said(),
                value = card
            ),
        ),
    }
}

/// Which end of the table C1, C2 and E2 ask for.
#[derive(Clone, Copy)]
enum Extreme {
    Fewest,
    Most,
}

/// C1, C2, E2: every other player's count must stand in `holds` to mine (0 counts too).
fn compare(
    colour: Colour,
    me: &RowFacts,
    everyone: &[RowFacts],
    holds: impl Fn(i64, i64) -> bool,
    extreme: Extreme,
) -> (bool, Message) {
    let mine = me.count(colour);
    let met = everyone.iter().all(|r| holds(mine, r.count(colour)));
    // The table's counts are numbers only: the same in every language.
    let mut table = String::with_capacity(4 * everyone.len());
    for (i, r) in everyone.iter().enumerate() {
        if i > 0 {
            table.push_str(", ");
        }
        push_int(&mut table, r.count(colour));
    }
    let fact = match (extreme, met) {
        (Extreme::Fewest, true) => said!(
            "server.mind_up.fact.fewest",
            n = mine,
            colour = colour.said(),
            table = table
        ),
        (Extreme::Fewest, false) => said!(
            "server.mind_up.fact.not_fewest",
            n = mine,
            colour = colour.said(),
            table = table
        ),
        (Extreme::Most, true) => said!(
            "server.mind_up.fact.most",
            n = mine,
            colour = colour.said(),
            table = table
        ),
        (Extreme::Most, false) => said!(
            "server.mind_up.fact.not_most",
            n = mine,
            colour = colour.said(),
            table = table
        ),
    };
    (met, fact)
}

/// G1 and G2: some colour has exactly `size` cards.
fn size_fact(me: &RowFacts, size: i64) -> (bool, Message) {
    let hits: Vec<Message> = Colour::ALL
        .into_iter()
        .filter(|&c| me.count(c) == size)
        .map(Colour::said)
        .collect();
    if hits.is_empty() {
        return (false, said!("server.mind_up.fact.no_size", size = size));
    }
    let mut colours = hits.into_iter();
    let mut listed = colours.next().unwrap_or_default();
    for colour in colours {
        listed = said!("server.list.pair", first = listed, next = colour);
    }
    (
        true,
        said!("server.mind_up.fact.size", colours = listed, size = size),
    )
}

/// What the objectives need to know of one row: how many cards of each colour, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFacts {
    counts: [i64; 5],
    columns: [Option<usize>; 5],
    pub used_columns: usize,
}

impl RowFacts {
    /// `columns` is the row left to right; each column holds one colour.
    pub fn of<'a>(columns: impl IntoIterator<Item = &'a [Number]>, catalogue: &Catalogue) -> Self {
        let mut facts = RowFacts {
            counts: [0; 5],
            columns: [None; 5],
            used_columns: 0,
        };
        for (k, column) in columns.into_iter().enumerate() {
            let Some(&first) = column.first() else {
                continue;
            };
            let colour = catalogue.colour(first) as usize;
            facts.columns[colour] = Some(k);
            facts.counts[colour] += column.len() as i64;
            facts.used_columns = k + 1;
        }
        facts
    }

    pub fn count(&self, colour: Colour) -> i64 {
        self.counts[colour as usize]
    }

    /// The column (0-based) holding the colour.
    pub fn column_of(&self, colour: Colour) -> Option<usize> {
        self.columns[colour as usize]
    }

    pub fn colours(&self) -> usize {
        self.counts.iter().filter(|&&n| n > 0).count()
    }
}

/// The breakdown detail of a judged face: "3 orange → +2", "2 orange → not met".
pub fn verdict(face: Face, met: bool, facts: Message) -> (i64, Message) {
    if met {
        let points = face.points();
        (
            points,
            said!(
                "server.mind_up.objective.met",
                facts = facts,
                points = Arg::Signed(points)
            ),
        )
    } else {
        (0, said!("server.mind_up.objective.not_met", facts = facts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row from its columns, with the printed cards.
    fn facts(columns: &[&[Number]]) -> RowFacts {
        let columns: Vec<Vec<Number>> = columns.iter().map(|c| c.to_vec()).collect();
        RowFacts::of(columns.iter().map(Vec::as_slice), &Catalogue::printed())
    }

    const SCORE_CARDS: [u8; 5] = [2, 4, 1, 5, 3];

    fn holds(face: Face, me: &RowFacts, everyone: &[RowFacts]) -> bool {
        face.judge(me, everyone, &SCORE_CARDS, D1WithoutGreen::Nothing)
            .0
    }

    #[test]
    fn a2_takes_two_when_orange_sits_under_the_1_or_2() {
        // Orange 23 in column 1, under the 2 → A2 holds (−2); under the 4 (column 2) it does not.
        let under_2 = facts(&[&[23], &[9]]);
        let under_4 = facts(&[&[9], &[23]]);
        assert!(holds(Face::A2, &under_2, &[]));
        assert!(!holds(Face::A2, &under_4, &[]));
        assert_eq!(Face::A2.points(), -2);
    }

    #[test]
    fn b2_counts_a_tie_with_blue_as_no_colour_having_more() {
        // Blue 13 18, orange 23 31: tie → holds; a third orange → fails.
        assert!(holds(Face::B2, &facts(&[&[13, 18], &[23, 31]]), &[]));
        assert!(!holds(Face::B2, &facts(&[&[13, 18], &[23, 31, 60]]), &[]));
    }

    #[test]
    fn d1_needs_green_in_the_last_used_column_and_scores_nothing_without_green() {
        assert!(holds(Face::D1, &facts(&[&[23], &[12]]), &[]));
        assert!(!holds(Face::D1, &facts(&[&[12], &[23]]), &[]));
        let (met, detail) =
            Face::D1.judge(&facts(&[&[23]]), &[], &SCORE_CARDS, D1WithoutGreen::Nothing);
        assert!(!met);
        assert_eq!(detail, "no green (house rule d1_without_green: nothing)");
    }

    #[test]
    fn d1_holds_without_green_under_the_house_rule_bonus_but_not_with_green_on_the_left() {
        // Orange 23 alone: no green, nothing lies right of it → met. Green 12 then orange 23:
        // a card right of green → still not met, whatever the house rule.
        let judge = |row: &RowFacts| Face::D1.judge(row, &[], &SCORE_CARDS, D1WithoutGreen::Bonus);
        assert_eq!(
            judge(&facts(&[&[23]])),
            (
                true,
                "no green, so nothing to its right (house rule d1_without_green: bonus)".into()
            )
        );
        assert!(!judge(&facts(&[&[12], &[23]])).0);
        assert!(judge(&facts(&[&[23], &[12]])).0);
    }

    #[test]
    fn d2_needs_green_under_the_4_or_5() {
        // Green 12 in column 2 (under the 4) → holds; in column 3 (under the 1) → fails.
        assert!(holds(Face::D2, &facts(&[&[23], &[12]]), &[]));
        assert!(!holds(Face::D2, &facts(&[&[23], &[9], &[12]]), &[]));
    }

    #[test]
    fn e1_zero_purple_against_zero_orange_qualifies() {
        assert!(holds(Face::E1, &facts(&[&[12]]), &[]));
        assert!(!holds(Face::E1, &facts(&[&[23]]), &[]));
    }

    #[test]
    fn when_nobody_has_pink_everyone_gets_c2_and_c1() {
        // rules: a player with 0 takes part; everyone at 0 pink → everyone has the most
        // and the fewest.
        let rows = [facts(&[&[23]]), facts(&[&[12]]), facts(&[&[9]])];
        for me in &rows {
            assert!(holds(Face::C2, me, &rows));
            assert!(holds(Face::C1, me, &rows));
        }
    }

    #[test]
    fn e2_hits_every_player_tied_for_the_most_purple() {
        // Purple: 2, 2, 1 → the two with 2 take −2.
        let rows = [
            facts(&[&[9, 11]]),
            facts(&[&[20, 22]]),
            facts(&[&[26], &[23]]),
        ];
        assert!(holds(Face::E2, &rows[0], &rows));
        assert!(holds(Face::E2, &rows[1], &rows));
        assert!(!holds(Face::E2, &rows[2], &rows));
    }

    #[test]
    fn g2_needs_a_colour_with_exactly_four() {
        assert!(holds(Face::G2, &facts(&[&[23, 31, 60, 1]]), &[]));
        assert!(!holds(Face::G2, &facts(&[&[23, 31, 60, 1, 8]]), &[]));
    }

    #[test]
    fn every_face_code_parses_back() {
        for face in Face::ALL {
            assert_eq!(Face::parse(face.code()), Some(face));
        }
        assert_eq!(Face::parse("H1"), None);
    }
}
