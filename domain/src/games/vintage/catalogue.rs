//! The antique cards. Their list is not published (rules: Components), so a table describes a
//! card the first time it appears — `{"id", "type", "colour", "period", "value"}` — and may name
//! it by its id afterwards.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::RuleError;
use crate::message::Message;
use crate::pointer::pointer;

/// The 63 antique cards of the box (rules: Components).
pub const CARDS: usize = 63;

/// One antique card as printed. `id` is the table's own label for the physical card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub id: String,
    /// The type of object ("lamp"); `type` in events.
    pub object: String,
    pub colour: String,
    pub period: String,
    pub value: u32,
    /// Any other printed attribute, by name (rules: "other attributes are free text").
    pub other: BTreeMap<String, String>,
}

/// The printed text attributes a prize can count: type, colour, period or any other the table
/// records on its cards (not the id, nor the value, a number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribute {
    Type,
    Colour,
    Period,
    /// Another printed attribute, by name: lower-cased and found on a card ignoring case, or
    /// letter for letter in games stored before schema version 6 (`exact`).
    Other {
        name: String,
        exact: bool,
    },
}

impl Attribute {
    /// The attribute a prize names, ignoring case and surrounding spaces as attribute values
    /// are compared (`"Colour"` is `colour`). `exact`: letter for letter, as games stored
    /// before schema version 6 read it ([`super::Options::attribute_names_exact`]).
    pub fn parse(name: &str, exact: bool) -> Option<Attribute> {
        let name = name.trim();
        // Lower-cased a character at a time, as `same_text` compares.
        let name: String = if exact {
            name.to_owned()
        } else {
            name.chars().flat_map(char::to_lowercase).collect()
        };
        match name.as_str() {
            "type" => Some(Attribute::Type),
            "colour" => Some(Attribute::Colour),
            "period" => Some(Attribute::Period),
            "" | "id" | "value" => None,
            _ => Some(Attribute::Other { name, exact }),
        }
    }
}

impl Attribute {
    /// The attribute's name in a sentence: the game's word for it, or the name the table gave.
    pub fn said(&self) -> Message {
        match self {
            Attribute::Type => crate::said!("server.vintage.attribute.type"),
            Attribute::Colour => crate::said!("server.vintage.attribute.colour"),
            Attribute::Period => crate::said!("server.vintage.attribute.period"),
            Attribute::Other { name, .. } => Message::data(name.clone()),
        }
    }
}

impl Card {
    /// The card's text for `attribute`; `None` when the card does not record it.
    pub fn attribute(&self, attribute: &Attribute) -> Option<&str> {
        match attribute {
            Attribute::Type => Some(&self.object),
            Attribute::Colour => Some(&self.colour),
            Attribute::Period => Some(&self.period),
            Attribute::Other { name, exact: true } => self.other.get(name).map(String::as_str),
            Attribute::Other { name, exact: false } => self
                .other
                .iter()
                .find(|(recorded, _)| same_text(recorded, name))
                .map(|(_, text)| text.as_str()),
        }
    }

    /// Whether the card shows `value` for `attribute`, as a prize counts it.
    pub fn shows(&self, attribute: &Attribute, value: &str) -> bool {
        self.attribute(attribute)
            .is_some_and(|text| same_text(text, value))
    }

    /// "a blue 60s lamp worth 3", for messages: the table's words in the message's sentence.
    pub fn describe(&self) -> Message {
        crate::said!(
            "server.vintage.card.described",
            colour = &self.colour,
            period = &self.period,
            object = &self.object,
            value = self.value
        )
    }
}

/// Printed words are compared without case or surrounding spaces: "Blue" and "blue" are one
/// colour, both for a prize and for telling whether a card was described the same way twice.
pub fn same_text(a: &str, b: &str) -> bool {
    a.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .eq(b.trim().chars().flat_map(char::to_lowercase))
}

/// A card as an event gives it: by id (once described) or with its description.
#[derive(Debug, Clone, PartialEq)]
pub enum CardRef {
    Named(String),
    Described(Card),
}

/// The attributes every card has (rules: "at least a type, a colour, a period and a value").
const CARD_FIELDS: [&str; 5] = ["id", "type", "colour", "period", "value"];

impl CardRef {
    /// Reads a card; error pointers are relative to the card itself.
    pub fn parse(raw: &Value) -> Result<CardRef, RuleError> {
        let fields = match raw {
            Value::String(id) if !id.trim().is_empty() => return Ok(CardRef::Named(id.clone())),
            // A card of the table's deck, by its number.
            Value::Number(n) if n.is_u64() => return Ok(CardRef::Named(n.to_string())),
            Value::Object(fields) => fields,
            _ => {
                return Err(RuleError::said(
                    "",
                    crate::said!("server.vintage.refusal.card_is_id_number_or_description"),
                ));
            }
        };
        let mut other = BTreeMap::new();
        for (key, raw) in fields
            .iter()
            .filter(|(k, _)| !CARD_FIELDS.contains(&k.as_str()))
        {
            match raw {
                Value::String(s) if !s.trim().is_empty() => {
                    other.insert(key.trim().to_owned(), s.trim().to_owned());
                }
                _ => {
                    return Err(RuleError::said(
                        pointer([key]),
                        crate::said!(
                            "server.vintage.refusal.card_non_empty_text_besides",
                            key = key
                        ),
                    ));
                }
            }
        }
        let text = |field: &str| -> Result<String, RuleError> {
            match fields.get(field) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
                None => Err(RuleError::said(
                    "",
                    crate::said!(
                        "server.vintage.refusal.card_description_needs",
                        field = field
                    ),
                )),
                Some(_) => Err(RuleError::said(
                    pointer([field]),
                    crate::said!("server.vintage.refusal.card_non_empty_text", field = field),
                )),
            }
        };
        let id = match fields.get("id") {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            _ => text("id")?,
        };
        let object = text("type")?;
        let colour = text("colour")?;
        let period = text("period")?;
        let value = match fields.get("value") {
            None => {
                return Err(RuleError::said(
                    "",
                    crate::said!("server.vintage.refusal.card_description_needs_value"),
                ));
            }
            Some(v) => match v.as_u64().map(u32::try_from) {
                Some(Ok(value)) if i64::from(value) <= crate::score::POINTS_LIMIT => value,
                _ => {
                    return Err(RuleError::said(
                        "/value",
                        crate::said!(
                            "server.vintage.refusal.card_value_whole_number_from",
                            points_limit = crate::score::POINTS_LIMIT,
                            value = v
                        ),
                    ));
                }
            },
        };
        Ok(CardRef::Described(Card {
            id,
            object,
            colour,
            period,
            value,
            other,
        }))
    }
}

/// Every card described so far in the game, by id. A sorted list, not a map: a held game keeps
/// it, and a list copied to its size costs its cards alone (a B-tree's nodes are made for
/// eleven cards each).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    /// Sorted by id.
    cards: Vec<Card>,
}

impl Catalogue {
    pub fn get(&self, id: &str) -> Option<&Card> {
        let at = self
            .cards
            .binary_search_by(|c| c.id.as_str().cmp(id))
            .ok()?;
        Some(&self.cards[at])
    }

    /// Whether any card described in the game shows `value` for `attribute`.
    pub fn any_shows(&self, attribute: &Attribute, value: &str) -> bool {
        self.cards.iter().any(|card| card.shows(attribute, value))
    }

    /// Adds the cards first described by an accepted event.
    pub fn learn(&mut self, cards: Vec<Card>) {
        for card in cards {
            match self.cards.binary_search_by(|c| c.id.cmp(&card.id)) {
                Ok(at) => self.cards[at] = card,
                Err(at) => self.cards.insert(at, card),
            }
        }
    }
}

/// Resolves the cards one event names. Cards described for the first time wait here and join
/// the catalogue only when the whole event is accepted (a refused event changes nothing).
pub struct Naming<'a> {
    known: &'a Catalogue,
    new: Vec<Card>,
}

impl<'a> Naming<'a> {
    pub fn new(known: &'a Catalogue) -> Self {
        Self {
            known,
            new: Vec::new(),
        }
    }

    pub fn get(&self, id: &str) -> Option<&Card> {
        self.known
            .get(id)
            .or_else(|| self.new.iter().find(|c| c.id == id))
    }

    /// The id of a named or described card; pointers are relative to the card.
    pub fn resolve(&mut self, card: &CardRef) -> Result<String, RuleError> {
        match card {
            CardRef::Named(id) => match self.get(id) {
                Some(_) => Ok(id.clone()),
                None => Err(RuleError::said(
                    "",
                    crate::said!(
                        "server.vintage.refusal.card_was_never_described_not",
                        id = format!("{:?}", id)
                    ),
                )),
            },
            CardRef::Described(card) => {
                match self.get(&card.id) {
                    Some(earlier) => check_same(earlier, card)?,
                    None => self.new.push(card.clone()),
                }
                Ok(card.id.clone())
            }
        }
    }

    /// The cards this event described for the first time.
    pub fn learned(self) -> Vec<Card> {
        self.new
    }
}

/// rules: the id is "unique in the game" — one id, one physical card, one set of attributes.
fn check_same(earlier: &Card, now: &Card) -> Result<(), RuleError> {
    let field = if !same_text(&earlier.object, &now.object) {
        "type"
    } else if !same_text(&earlier.colour, &now.colour) {
        "colour"
    } else if !same_text(&earlier.period, &now.period) {
        "period"
    } else if earlier.value != now.value {
        "value"
    } else if let Some(name) = earlier.other.keys().chain(now.other.keys()).find(|name| {
        match (earlier.other.get(*name), now.other.get(*name)) {
            (Some(a), Some(b)) => !same_text(a, b),
            _ => true,
        }
    }) {
        name.as_str()
    } else {
        return Ok(());
    };
    if CARD_FIELDS.contains(&field) {
        return Err(RuleError::said(
            pointer([field]),
            crate::said!(
                "server.vintage.refusal.card_was_described_as_same",
                id = &now.id,
                earlier = earlier.describe(),
                now = now.describe()
            ),
        ));
    }
    let shown = |card: &Card| {
        card.other.get(field).map_or_else(
            || crate::said!("server.vintage.card.nothing"),
            |t| Message::data(format!("{t:?}")),
        )
    };
    Err(RuleError::said(
        pointer([field]),
        crate::said!(
            "server.vintage.refusal.card_was_described_same_card",
            id = &now.id,
            field = field,
            shown_earlier = shown(earlier),
            shown_now = shown(now)
        ),
    ))
}
