//! What a game starts with: its seated players and its effective options.
//!
//! Checked once, when the game is created; the result is stored as the data of event 1
//! (`game_started`) so a replay never depends on defaults that might change later.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::RuleError;
use crate::message::Message;
use crate::pointer::pointer;
use crate::words;

/// Longest player name we accept; a name is shown on a phone screen.
pub const MAX_NAME_CHARS: usize = 40;

/// The seated players of a game, seat 1 first: shared by the replay and its game's state (and
/// the copies an append and an undo make), as they never change once seated.
pub type Players = std::sync::Arc<[Player]>;

/// A player as the rule engines see them: a name (how events refer to them), a seat (1-based,
/// in the order given at creation) and an optional colour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: PlayerName,
    pub seat: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

/// A player as requested at game creation, before seats are assigned.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PlayerEntry {
    pub name: String,
    #[serde(default)]
    pub color: Option<String>,
}

/// A name as typed (a player's, a preset's, a club's, a token's), checked as the API's schema
/// checks it: at most `most` characters counted as sent, spaces around it included; no control
/// character anywhere, around it included (trimming takes spaces off, not a line break or a
/// tab); and not empty once the spaces around it are trimmed. Nor may it be made of invisible
/// characters alone (zero-width spaces and joiners), or hold a bidirectional control, which
/// can make a name read as another on screen (`Ann\u{202e}gnp.exe`). Returns it trimmed.
pub fn checked_name(raw: &str, most: usize) -> Result<&str, NameFault> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(NameFault::Empty);
    }
    if raw.chars().count() > most {
        return Err(NameFault::TooLong);
    }
    if raw.chars().any(char::is_control) {
        return Err(NameFault::ControlCharacters);
    }
    if raw.chars().any(is_bidi_control) {
        return Err(NameFault::BidiControls);
    }
    if name.chars().all(is_invisible) {
        return Err(NameFault::Invisible);
    }
    Ok(name)
}

/// Embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they reorder what
/// follows them. The marks (U+200E, U+200F) only give a direction and stay allowed.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A character that shows nothing by itself: a space, a zero-width character or joiner (a
/// Persian name keeps its zero-width non-joiner between letters), a word joiner, a
/// byte-order mark, a soft hyphen, a filler.
fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{2060}'..='\u{2064}'
                | '\u{feff}'
                | '\u{00ad}'
                | '\u{034f}'
                | '\u{180e}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{ffa0}'
        )
}

/// A player name that has been checked: trimmed, not empty, printable, not too long. A stored
/// game's names read back as they were stored: each was checked when its game was created (the
/// rules for new names may have tightened since).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerName(String);

impl PlayerName {
    pub fn parse(raw: &str) -> Result<Self, NameFault> {
        checked_name(raw, MAX_NAME_CHARS).map(|name| Self(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for PlayerName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for PlayerName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Written as the name's text is (`{:?}` quotes it, as refusals show names).
impl std::fmt::Debug for PlayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Display for PlayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for PlayerName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for PlayerName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<&PlayerName> for crate::message::Arg {
    fn from(name: &PlayerName) -> Self {
        name.as_str().into()
    }
}

impl From<PlayerName> for String {
    fn from(name: PlayerName) -> String {
        name.0
    }
}

/// Why a name was refused. The same rules name a club's presets, so each is said of either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFault {
    Empty,
    TooLong,
    ControlCharacters,
    /// Only characters that show nothing.
    Invisible,
    /// A bidirectional control character.
    BidiControls,
}

impl NameFault {
    /// Said of any name (a club's, a token's) for the faults not about its length.
    pub fn of_any_name(self) -> Option<Message> {
        match self {
            NameFault::Invisible => Some(crate::said!("server.common.refusal.name_invisible")),
            NameFault::BidiControls => {
                Some(crate::said!("server.common.refusal.name_bidi_controls"))
            }
            NameFault::Empty | NameFault::TooLong | NameFault::ControlCharacters => None,
        }
    }

    /// Said of a player's name.
    pub fn player(self) -> Message {
        match self {
            NameFault::Empty => crate::said!("server.common.refusal.player_name_empty"),
            NameFault::TooLong => crate::said!(
                "server.common.refusal.player_name_too_long",
                max_name_chars = MAX_NAME_CHARS
            ),
            NameFault::ControlCharacters => {
                crate::said!("server.common.refusal.player_name_control_characters")
            }
            NameFault::Invisible | NameFault::BidiControls => {
                self.of_any_name().unwrap_or_else(|| unreachable!())
            }
        }
    }

    /// Said of a preset's name.
    pub fn preset(self) -> Message {
        match self {
            NameFault::Empty => crate::said!("server.common.refusal.preset_name_empty"),
            NameFault::TooLong => crate::said!(
                "server.common.refusal.preset_name_too_long",
                max_name_chars = MAX_NAME_CHARS
            ),
            NameFault::ControlCharacters => {
                crate::said!("server.common.refusal.preset_name_control_characters")
            }
            NameFault::Invisible | NameFault::BidiControls => {
                self.of_any_name().unwrap_or_else(|| unreachable!())
            }
        }
    }
}

/// The one rule for matching player names, everywhere: two names are the same player when they
/// are equal after trimming and ignoring case ("Ann", " ann" and "ANN" are one player). It
/// applies at a table (two seats cannot share a name), inside a game's events (an event may
/// write "ann" for the seated "Ann") and across a club's games (the club's player "Ann").
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Whether two names are the same player under [`name_key`]'s rule.
pub fn same_name(a: &str, b: &str) -> bool {
    // Called for every name of every event against every seat: ASCII names (most) are compared
    // without building their keys; others by their keys (`to_lowercase` has rules of its own,
    // such as Greek's final sigma).
    let (a, b) = (a.trim(), b.trim());
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    name_key(a) == name_key(b)
}

/// The seat (0-based) of the player an event names, by [`name_key`]'s rule.
pub fn seat_named(players: &[Player], name: &str) -> Option<usize> {
    players.iter().position(|p| same_name(&p.name, name))
}

/// The seat of each key of an event's object from player name to something, with its value. A
/// key naming nobody at the table, or a player given twice (in two spellings), is refused;
/// pointers are `/<field>/<key as written>`.
pub fn seats_of_keys<'a>(
    given: &'a Map<String, Value>,
    field: &str,
    players: &[Player],
) -> Result<Vec<(usize, &'a Value)>, RuleError> {
    let mut seats: Vec<(usize, &'a Value)> = Vec::with_capacity(given.len());
    for (key, value) in given {
        let Some(seat) = seat_named(players, key) else {
            let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
            return Err(RuleError::said(
                pointer([field, key]),
                crate::said!(
                    "server.common.refusal.does_not_play_this_game",
                    name = format!("{:?}", key),
                    players = crate::score::said_names(&names)
                ),
            ));
        };
        // The seats follow the keys' order: the i-th seat is the i-th key's.
        if let Some(earlier) = seats
            .iter()
            .position(|(s, _)| *s == seat)
            .and_then(|i| given.keys().nth(i))
        {
            return Err(RuleError::said(
                pointer([field, key]),
                crate::said!(
                    "server.common.refusal.are_same_player_names_match",
                    earlier = format!("{:?}", earlier),
                    key = format!("{:?}", key),
                    name = &players[seat].name
                ),
            ));
        }
        seats.push((seat, value));
    }
    Ok(seats)
}

/// An event's object from player name to something, with its keys rewritten to the names as
/// seated, so the game reads it by seat name; refused as [`seats_of_keys`] refuses.
pub fn keys_by_seated_name(
    given: &Map<String, Value>,
    field: &str,
    players: &[Player],
) -> Result<Map<String, Value>, RuleError> {
    Ok(seats_of_keys(given, field, players)?
        .into_iter()
        .map(|(seat, value)| (players[seat].name.to_string(), value.clone()))
        .collect())
}

/// Seats the players in the order given and checks what every game requires: a name each,
/// names unique at the table (ignoring case, see [`name_key`]), colours unique when given, and a player count
/// the game allows. `pointer`s are relative to the creation request.
pub fn seat_players(
    entries: &[PlayerEntry],
    allowed: std::ops::RangeInclusive<usize>,
    game_title: &str,
) -> Result<Vec<Player>, RuleError> {
    if !allowed.contains(&entries.len()) {
        return Err(RuleError::said(
            "/players",
            crate::said!(
                "server.common.refusal.played_players_not",
                game_title = game_title,
                start = allowed.start(),
                end = allowed.end(),
                entries = entries.len()
            ),
        ));
    }
    let mut players: Vec<Player> = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let name = PlayerName::parse(&entry.name).map_err(|fault| {
            RuleError::said(pointer(["players", &i.to_string(), "name"]), fault.player())
        })?;
        if let Some(other) = players.iter().find(|p| same_name(&p.name, name.as_str())) {
            return Err(RuleError::said(
                pointer(["players", &i.to_string(), "name"]),
                crate::said!(
                    "server.common.refusal.two_players_are_called_names",
                    name = format!("{:?}", other.name)
                ),
            ));
        }
        let color = match entry.color.as_deref().map(str::trim) {
            None => None,
            Some("") => {
                return Err(RuleError::said(
                    pointer(["players", &i.to_string(), "color"]),
                    crate::said!("server.common.refusal.colour_cannot_empty_leave_out"),
                ));
            }
            Some(color)
                if color.chars().count() > MAX_NAME_CHARS
                    || color.chars().any(char::is_control) =>
            {
                return Err(RuleError::said(
                    pointer(["players", &i.to_string(), "color"]),
                    crate::said!(
                        "server.common.refusal.colour_has_most_printable_characters",
                        max_name_chars = MAX_NAME_CHARS
                    ),
                ));
            }
            Some(color) => {
                if let Some(other) = players.iter().find(|p| {
                    p.color
                        .as_deref()
                        .is_some_and(|c| c.eq_ignore_ascii_case(color))
                }) {
                    return Err(RuleError::said(
                        pointer(["players", &i.to_string(), "color"]),
                        crate::said!(
                            "server.common.refusal.already_plays_colours_must_differ",
                            name = &other.name,
                            color = color
                        ),
                    ));
                }
                Some(color.to_owned())
            }
        };
        players.push(Player {
            name,
            seat: i as u32 + 1,
            color,
        });
    }
    Ok(players)
}

/// The value with every number that is whole written as an integer: JSON Schema, and so a
/// client generated from our document, calls `12337.0` an integer.
pub fn whole_numbers(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map_or_else(|| value.clone(), |f| Value::from(f as i64)),
        Value::Array(items) => Value::Array(items.iter().map(whole_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), whole_numbers(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Reads a game's options: every key must be known, each value of the right type; keys left
/// out take their defaults. Errors point at `/options/<key>`.
pub fn parse_options<O>(given: &Value) -> Result<O, RuleError>
where
    O: Serialize + DeserializeOwned + Default,
{
    let defaults = match serde_json::to_value(O::default()) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let given = match whole_numbers(given) {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        _ => {
            return Err(RuleError::said(
                "/options",
                crate::said!("server.common.refusal.options_must_json_object"),
            ));
        }
    };
    let mut merged = defaults.clone();
    for (key, value) in given {
        if !defaults.contains_key(&key) {
            let mut known: Vec<&str> = defaults.keys().map(String::as_str).collect();
            known.sort_unstable();
            let known = if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            };
            return Err(RuleError::said(
                pointer(["options", &key]),
                crate::said!(
                    "server.common.refusal.unknown_option_this_game_options",
                    key = format!("{:?}", key),
                    known = known
                ),
            ));
        }
        // Check this key alone so the error can name it.
        let mut single = defaults.clone();
        single.insert(key.clone(), value.clone());
        if let Err(e) = serde_json::from_value::<O>(Value::Object(single)) {
            return Err(RuleError::said(
                pointer(["options", &key]),
                words::refusal_said(
                    crate::said!("server.words.option", key = format!("{key:?}")),
                    &e.to_string(),
                    value.is_object() || value.is_array(),
                ),
            ));
        }
        merged.insert(key, value);
    }
    serde_json::from_value(Value::Object(merged)).map_err(|e| {
        RuleError::said(
            "/options",
            words::refusal_said(
                crate::said!("server.words.the_options"),
                &e.to_string(),
                true,
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Demo {
        lucky: bool,
        protects: u32,
    }

    fn entries(names: &[&str]) -> Vec<PlayerEntry> {
        names
            .iter()
            .map(|n| PlayerEntry {
                name: (*n).into(),
                color: None,
            })
            .collect()
    }

    #[test]
    fn players_are_seated_in_the_order_given() {
        let players = seat_players(&entries(&["Ann", " Bo "]), 2..=5, "Demo").unwrap();
        assert_eq!(players[0].seat, 1);
        assert_eq!(players[1].name, "Bo");
        assert_eq!(players[1].seat, 2);
        assert_eq!(format!("{:?}", players[1].name), r#""Bo""#);
    }

    #[test]
    fn too_few_players_names_the_allowed_range() {
        let err = seat_players(&entries(&["Ann"]), 2..=5, "Demo").unwrap_err();
        assert_eq!(err.pointer, "/players");
        assert_eq!(err.rule, "Demo is played by 2 to 5 players, not 1");
    }

    #[test]
    fn names_match_after_trimming_and_ignoring_case_in_any_script() {
        assert!(same_name(" Ann", "ANN "));
        assert!(!same_name("Ann", "Anna"));
        assert!(same_name("Zoë", " ZOË"));
        assert!(same_name("بابک", "بابک "));
        assert!(!same_name("Zoë", "Zoe"));
    }

    #[test]
    fn two_players_with_the_same_name_in_other_case_are_refused() {
        let err = seat_players(&entries(&["Ann", "ann"]), 2..=5, "Demo").unwrap_err();
        assert_eq!(err.pointer, "/players/1/name");
    }

    #[test]
    fn an_empty_name_is_refused() {
        let err = seat_players(&entries(&["Ann", "  "]), 2..=5, "Demo").unwrap_err();
        assert_eq!(err.pointer, "/players/1/name");
        assert_eq!(err.rule, "a player name cannot be empty");
    }

    #[test]
    fn a_name_of_40_characters_is_kept_and_one_over_40_with_spaces_around_it_is_refused() {
        let forty = "A".repeat(40);
        assert_eq!(PlayerName::parse(&forty).unwrap().as_str(), forty);
        let rule = PlayerName::parse(&format!("\u{a0}{forty}")).unwrap_err();
        assert_eq!(
            rule.player(),
            "a player name has at most 40 characters, spaces around it included"
        );
    }

    #[test]
    fn a_line_break_or_tab_is_refused_inside_a_name_and_around_it_where_spaces_are_trimmed() {
        assert_eq!(PlayerName::parse("  Ann ").unwrap().as_str(), "Ann");
        for raw in ["\nAnn", "Ann\t", "A\u{7f}nn", "\u{85}Ann"] {
            assert_eq!(
                PlayerName::parse(raw),
                Err(NameFault::ControlCharacters),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn two_players_with_one_colour_are_refused() {
        let mut e = entries(&["Ann", "Bo"]);
        e[0].color = Some("red".into());
        e[1].color = Some("red".into());
        let err = seat_players(&e, 2..=5, "Demo").unwrap_err();
        assert_eq!(err.pointer, "/players/1/color");
    }

    #[test]
    fn missing_options_take_their_defaults() {
        let o: Demo = parse_options(&json!({"protects": 2})).unwrap();
        assert_eq!(
            o,
            Demo {
                lucky: false,
                protects: 2
            }
        );
        let o: Demo = parse_options(&Value::Null).unwrap();
        assert_eq!(o, Demo::default());
    }

    #[test]
    fn a_name_of_invisible_characters_alone_or_with_a_bidirectional_control_is_refused() {
        for invisible in [
            "\u{200b}\u{200c}\u{200d}",
            "\u{feff}",
            " \u{2060} ",
            "\u{3164}",
        ] {
            assert_eq!(
                PlayerName::parse(invisible),
                Err(NameFault::Invisible),
                "{invisible:?}"
            );
        }
        for reordered in ["Ann\u{202e}gnp.exe", "\u{2067}Bo", "Cy\u{202a}"] {
            assert_eq!(
                PlayerName::parse(reordered),
                Err(NameFault::BidiControls),
                "{reordered:?}"
            );
        }
        let rule = seat_players(&entries(&["Ann", "\u{200b}"]), 2..=5, "Demo").unwrap_err();
        assert_eq!(
            rule.rule,
            "a name must show at least one visible character (spaces and zero-width characters \
             alone show nothing)"
        );
        // A Persian name keeps its zero-width non-joiner between letters, and a direction mark
        // only gives a direction.
        assert_eq!(
            PlayerName::parse("نیم\u{200c}رخ").unwrap().as_str(),
            "نیم\u{200c}رخ"
        );
        assert_eq!(
            PlayerName::parse("\u{200f}بابک").unwrap().as_str(),
            "\u{200f}بابک"
        );
    }

    #[test]
    fn an_unknown_option_is_named_with_the_known_ones() {
        let err = parse_options::<Demo>(&json!({"lucy": true})).unwrap_err();
        assert_eq!(err.pointer, "/options/lucy");
        assert_eq!(
            err.rule,
            "unknown option \"lucy\"; this game's options are: lucky, protects"
        );
    }

    #[test]
    fn an_option_of_the_wrong_type_is_named() {
        let err = parse_options::<Demo>(&json!({"lucky": "yes"})).unwrap_err();
        assert_eq!(err.pointer, "/options/lucky");
        assert_eq!(
            err.rule,
            "option \"lucky\" must be true or false; got the text \"yes\""
        );
    }
}
