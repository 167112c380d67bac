//! Schema versions: today's, and the upcast of older stored data on its way into a replay.

use serde_json::Value;

use super::GAME_STARTED;
use crate::ruleset::Ruleset;

/// The schema version events are written with today. History:
/// 1. the first one;
/// 2. Mint Condition's option `protected_be_careful` (games of version 1 played `"ignored"`).
/// 3. Mint Julep's option `last_race_ends_game` (games of versions 1–2 played `false`).
/// 4. Mind Up! with 4–5 objectives lists round 1's again in rounds 2–3 (games of versions 1–3
///    could leave them out).
/// 5. Mint Julep's `replaces` replaces the bet it names in any game (games of versions 1–4 read
///    it only with 2 players holding two bets).
/// 6. Vintage reads a prize's attribute name ignoring case (games of versions 1–5 read it letter
///    for letter).
pub const SCHEMA_VERSION: u32 = 6;

/// Brings a stored event's data up to today's [`SCHEMA_VERSION`], without touching the store:
/// `game_started`'s options get the values a game of that version was played with for the
/// options added since (see [`Ruleset::upcast_options`]). Other data has not changed shape.
pub fn upcast<R: Ruleset>(event_type: &str, schema_version: u32, data: &mut Value) {
    if event_type == GAME_STARTED
        && let Some(options) = data.get_mut("options")
    {
        upcast_options::<R>(schema_version, options);
    }
}

/// Upcasts stored options older than [`SCHEMA_VERSION`]; today's are read as they are.
pub(super) fn upcast_options<R: Ruleset>(schema_version: u32, options: &mut Value) {
    if schema_version < SCHEMA_VERSION
        && let Value::Object(options) = options
    {
        R::upcast_options(schema_version, options);
    }
}
