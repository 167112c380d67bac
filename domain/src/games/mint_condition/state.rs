//! What the events of a Mint Condition game established (`rules.rs` folds the events into it).

use super::Options;
use super::events::RoundCollected;
use crate::setup::Players;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub players: Players,
    pub options: Options,
    /// Rounds recorded so far, in order.
    pub rounds: Vec<RoundCollected>,
}
