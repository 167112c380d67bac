//! `game_started`: a new game's players and options, checked once and read back on replay.

use serde::Deserialize;
use serde_json::Value;

use crate::error::RuleError;
use crate::ruleset::Ruleset;
use crate::setup::{Player, PlayerEntry, parse_options, seat_players};

pub const GAME_STARTED: &str = "game_started";

/// The seated players and effective options of a new game, as stored in `game_started`.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    pub players: Vec<Player>,
    pub options: Value,
}

/// Checks a new game's players and options. Pointers are relative to the creation request.
pub fn start<R: Ruleset>(entries: &[PlayerEntry], options: &Value) -> Result<Setup, RuleError> {
    let players = seat_players(entries, R::PLAYERS, R::TITLE)?;
    let given = options;
    let options: R::Options = parse_options(given)?;
    for (key, why) in R::REQUIRED_OPTIONS {
        if given.get(key).is_none() {
            return Err(RuleError::said("/options", why()));
        }
    }
    R::check_setup(&players, &options)?;
    let options = serde_json::to_value(&options).map_err(|e| {
        RuleError::said(
            "/options",
            crate::said!("server.common.refusal.options_cannot_stored", error = e),
        )
    })?;
    Ok(Setup { players, options })
}

/// `game_started`'s data as stored: the seated players and the effective options.
#[derive(Deserialize)]
pub(super) struct StartedData {
    pub(super) players: Vec<Player>,
    #[serde(default)]
    pub(super) options: Value,
}
