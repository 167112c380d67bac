//! The race: an ordered list of groups, front to back, each a stack of horses, top first.
//!
//! rules: a move takes one horse out of its group and puts it on top of the adjacent group
//! ahead (forward) or behind (back); with no group there it starts a new one, but never leaving
//! a gap; an emptied group disappears. The final placement reads the groups front to back, each
//! top to bottom.

use serde_json::{Value, json};

use super::horses::Horse;
use crate::message::Message;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Back,
}

impl Direction {
    pub fn word(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Back => "back",
        }
    }

    /// The direction in a sentence, in the sentence's language.
    pub fn said(self) -> Message {
        match self {
            Direction::Forward => crate::said!("server.mint_julep.direction.forward"),
            Direction::Back => crate::said!("server.mint_julep.direction.back"),
        }
    }

    pub fn opposite(self) -> Direction {
        match self {
            Direction::Forward => Direction::Back,
            Direction::Back => Direction::Forward,
        }
    }
}

/// A top-horse move needs the horse on top of its group; a named-horse move takes it from
/// anywhere in its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveKind {
    Top,
    Named,
}

impl MoveKind {
    pub fn word(self) -> &'static str {
        match self {
            MoveKind::Top => "top",
            MoveKind::Named => "named",
        }
    }
}

/// One horse moved one step by a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub horse: Horse,
    pub direction: Direction,
    pub kind: MoveKind,
}

impl Move {
    /// How a message names the move: "You Got Me forward (named-horse move)".
    pub fn describe(&self) -> Message {
        let direction = self.direction.said();
        match self.kind {
            MoveKind::Top => crate::said!(
                "server.mint_julep.move.top",
                horse = self.horse.name(),
                direction = direction
            ),
            MoveKind::Named => crate::said!(
                "server.mint_julep.move.named",
                horse = self.horse.name(),
                direction = direction
            ),
        }
    }
}

/// Why a move or a Mint Julep card cannot be played on the race as it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RaceError {
    /// The horse is alone in the front (or last) group and would leave a gap.
    Gap { horse: Horse, direction: Direction },
    /// A top-horse move on a horse that has another horse above it.
    NotTop { horse: Horse, top: Horse },
    /// The horse already moved the other way in this card's action.
    MovedBack { horse: Horse, direction: Direction },
    /// Mint Julep on a horse that is not the top of its group.
    MintJulepNotTop { horse: Horse, top: Horse },
    /// Mint Julep on a horse already flipped.
    AlreadyFlipped { horse: Horse },
}

impl RaceError {
    /// The rule in words a player understands.
    pub fn rule(&self) -> Message {
        match self {
            RaceError::Gap {
                horse,
                direction: Direction::Forward,
            } => crate::said!(
                "server.mint_julep.race.alone_in_front",
                horse = horse.name()
            ),
            RaceError::Gap {
                horse,
                direction: Direction::Back,
            } => crate::said!("server.mint_julep.race.alone_at_back", horse = horse.name()),
            RaceError::NotTop { horse, top } => crate::said!(
                "server.mint_julep.race.not_top",
                horse = horse.name(),
                top = top.name()
            ),
            RaceError::MovedBack {
                horse,
                direction: Direction::Forward,
            } => crate::said!(
                "server.mint_julep.race.moved_back_already",
                horse = horse.name()
            ),
            RaceError::MovedBack {
                horse,
                direction: Direction::Back,
            } => crate::said!(
                "server.mint_julep.race.moved_forward_already",
                horse = horse.name()
            ),
            RaceError::MintJulepNotTop { horse, top } => crate::said!(
                "server.mint_julep.race.mint_julep_not_top",
                horse = horse.name(),
                top = top.name()
            ),
            RaceError::AlreadyFlipped { horse } => crate::said!(
                "server.mint_julep.race.already_flipped",
                horse = horse.name()
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Race {
    /// Front group first; each group top first; never an empty group.
    groups: Vec<Vec<Horse>>,
    /// Indexed by [`Horse::index`]: flipped by a Mint Julep card, for good.
    flipped: [bool; 5],
}

impl Default for Race {
    fn default() -> Self {
        Self::new()
    }
}

impl Race {
    /// rules: all five horses start in one group, in the table's order, special side up.
    pub fn new() -> Self {
        Self {
            groups: vec![Horse::ALL.to_vec()],
            flipped: [false; 5],
        }
    }

    pub fn groups(&self) -> &[Vec<Horse>] {
        &self.groups
    }

    pub fn is_flipped(&self, horse: Horse) -> bool {
        self.flipped[horse.index()]
    }

    /// The group index and the height from the top of a horse.
    fn locate(&self, horse: Horse) -> (usize, usize) {
        self.groups
            .iter()
            .enumerate()
            .find_map(|(g, group)| group.iter().position(|h| *h == horse).map(|i| (g, i)))
            .unwrap_or_else(|| unreachable!("every horse is in exactly one group"))
    }

    /// The top horse of the horse's group.
    fn top_of_group(&self, horse: Horse) -> Horse {
        let (g, _) = self.locate(horse);
        self.groups[g][0]
    }

    /// rules: final placement — groups front to back, each top to bottom.
    pub fn placement(&self) -> Vec<Horse> {
        self.groups.iter().flatten().copied().collect()
    }

    /// The place (1st = 1) of a horse.
    pub fn place_of(&self, horse: Horse) -> usize {
        self.placement()
            .iter()
            .position(|h| *h == horse)
            .map_or(0, |i| i + 1)
    }

    /// One move, checked. On error the race is unchanged.
    pub fn move_horse(&mut self, step: Move) -> Result<(), RaceError> {
        let (g, i) = self.locate(step.horse);
        if step.kind == MoveKind::Top && i != 0 {
            return Err(RaceError::NotTop {
                horse: step.horse,
                top: self.groups[g][0],
            });
        }
        let alone = self.groups[g].len() == 1;
        let last = self.groups.len() - 1;
        let edge = match step.direction {
            Direction::Forward => g == 0,
            Direction::Back => g == last,
        };
        if alone && edge {
            return Err(RaceError::Gap {
                horse: step.horse,
                direction: step.direction,
            });
        }
        self.groups[g].remove(i);
        match (step.direction, edge) {
            // [D] no group ahead or behind: the horse starts a new one there.
            (Direction::Forward, true) => {
                self.groups.insert(0, vec![step.horse]);
            }
            (Direction::Back, true) => self.groups.push(vec![step.horse]),
            (Direction::Forward, false) => self.groups[g - 1].insert(0, step.horse),
            (Direction::Back, false) => self.groups[g + 1].insert(0, step.horse),
        }
        // rules: an emptied group disappears.
        self.groups.retain(|group| !group.is_empty());
        Ok(())
    }

    /// One card's moves in order. rules: within one card's action a horse may not be moved
    /// and then moved back. On error the race is unchanged and the index of the failing move
    /// is returned with the reason.
    pub fn play_moves(&mut self, moves: &[Move]) -> Result<(), (usize, RaceError)> {
        let mut next = self.clone();
        let mut moved: Vec<(Horse, Direction)> = Vec::new();
        for (index, step) in moves.iter().enumerate() {
            // A horse that moved one way in this card may not come back the other way.
            let opposite = (step.horse, step.direction.opposite());
            if moved.contains(&opposite) {
                return Err((
                    index,
                    RaceError::MovedBack {
                        horse: step.horse,
                        direction: step.direction,
                    },
                ));
            }
            next.move_horse(*step).map_err(|e| (index, e))?;
            moved.push((step.horse, step.direction));
        }
        *self = next;
        Ok(())
    }

    /// rules: the Mint Julep card goes on an unflipped horse at the top of its group, which is
    /// flipped for good. On error the race is unchanged.
    pub fn flip(&mut self, horse: Horse) -> Result<(), RaceError> {
        if self.is_flipped(horse) {
            return Err(RaceError::AlreadyFlipped { horse });
        }
        let top = self.top_of_group(horse);
        if top != horse {
            return Err(RaceError::MintJulepNotTop { horse, top });
        }
        self.flipped[horse.index()] = true;
        Ok(())
    }

    /// A race known only by its finish (`race_recorded`): the group structure is unknown, so
    /// the horses are kept as one stack in placement order, which reads back the same placement.
    pub fn set_finish(&mut self, order: &[Horse]) {
        self.groups = vec![order.to_vec()];
    }

    /// For a phone to draw the track: groups front to back, each top first, with flipped flags.
    pub fn to_json(&self) -> Value {
        let groups: Vec<Value> = self
            .groups
            .iter()
            .map(|group| {
                Value::Array(
                    group
                        .iter()
                        .map(|h| {
                            json!({"horse": h.id(), "name": h.name(), "flipped": self.is_flipped(*h)})
                        })
                        .collect(),
                )
            })
            .collect();
        json!({
            "groups": groups,
            "placement": self.placement().iter().map(|h| h.id()).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Horse::*;

    fn step(horse: Horse, direction: Direction, kind: MoveKind) -> Move {
        Move {
            horse,
            direction,
            kind,
        }
    }

    #[test]
    fn the_race_starts_as_one_group_in_the_table_order() {
        let race = Race::new();
        assert_eq!(race.groups(), &[Horse::ALL.to_vec()]);
        assert_eq!(race.placement(), Horse::ALL.to_vec());
    }

    #[test]
    fn a_horse_moving_back_from_the_last_group_starts_a_new_group_behind() {
        let mut race = Race::new();
        race.move_horse(step(AlaskanJustice, Direction::Back, MoveKind::Top))
            .unwrap();
        assert_eq!(
            race.groups(),
            &[
                vec![MapleSplendor, NewtonsApple, WhiskeyPrincess, YouGotMe],
                vec![AlaskanJustice]
            ]
        );
    }

    #[test]
    fn an_emptied_middle_group_disappears() {
        // [YGM] [AJ MS NA WP] → MS back: [YGM] [AJ NA WP] [MS] → MS forward lands on top of
        // the middle group again; then AJ, NA, WP forward one by one empty the middle group.
        let mut race = Race::new();
        race.move_horse(step(YouGotMe, Direction::Forward, MoveKind::Named))
            .unwrap();
        for horse in [AlaskanJustice, MapleSplendor, NewtonsApple, WhiskeyPrincess] {
            race.move_horse(step(horse, Direction::Forward, MoveKind::Top))
                .unwrap();
        }
        // Each landed on top of the front group in turn: WP, NA, MS, AJ, YGM.
        assert_eq!(
            race.groups(),
            &[vec![
                WhiskeyPrincess,
                NewtonsApple,
                MapleSplendor,
                AlaskanJustice,
                YouGotMe
            ]]
        );
    }
}
