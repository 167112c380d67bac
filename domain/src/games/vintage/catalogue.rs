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

/// A card's number in its game: the order in which the game first described it (a table
/// keeps its cards as these numbers, not their ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CardNo(u16);

impl CardNo {
    fn at(self) -> usize {
        usize::from(self.0)
    }

    #[cfg(test)]
    pub(super) fn of(number: u16) -> CardNo {
        CardNo(number)
    }
}

/// A text of the game's cards, by its place in the catalogue's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TextNo(u16);

/// One antique card as an event describes it. `id` is the table's own label for the physical
/// card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
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

/// One card of a game as printed, read from the game's catalogue.
#[derive(Debug, Clone, Copy)]
pub struct Card<'a> {
    catalogue: &'a Catalogue,
    no: CardNo,
}

impl<'a> Card<'a> {
    fn printed(&self) -> &'a Printed {
        &self.catalogue.cards[self.no.at()]
    }

    pub fn id(&self) -> &'a str {
        self.catalogue.text(self.printed().id)
    }

    /// The type of object ("lamp").
    pub fn object(&self) -> &'a str {
        self.catalogue.text(self.printed().object)
    }

    pub fn colour(&self) -> &'a str {
        self.catalogue.text(self.printed().colour)
    }

    pub fn period(&self) -> &'a str {
        self.catalogue.text(self.printed().period)
    }

    pub fn value(&self) -> u32 {
        self.printed().value
    }

    /// Its other printed attributes, `(name, text)`, by name.
    pub fn others(&self) -> impl Iterator<Item = (&'a str, &'a str)> + use<'a> {
        let (catalogue, no) = (self.catalogue, self.no);
        catalogue
            .others
            .iter()
            .filter(move |other| other.card == no)
            .map(move |other| (catalogue.text(other.name), catalogue.text(other.text)))
    }

    /// Another printed attribute, by its name as recorded.
    pub fn other(&self, name: &str) -> Option<&'a str> {
        self.others()
            .find(|(recorded, _)| *recorded == name)
            .map(|(_, text)| text)
    }

    /// The card's text for `attribute`; `None` when the card does not record it.
    pub fn attribute(&self, attribute: &Attribute) -> Option<&'a str> {
        match attribute {
            Attribute::Type => Some(self.object()),
            Attribute::Colour => Some(self.colour()),
            Attribute::Period => Some(self.period()),
            Attribute::Other { name, exact: true } => self.other(name),
            Attribute::Other { name, exact: false } => self
                .others()
                .find(|(recorded, _)| same_text(recorded, name))
                .map(|(_, text)| text),
        }
    }

    /// Whether the card shows `value` for `attribute`, as a prize counts it.
    pub fn shows(&self, attribute: &Attribute, value: &str) -> bool {
        self.attribute(attribute)
            .is_some_and(|text| same_text(text, value))
    }

    /// "a blue 60s lamp worth 3", for messages: the table's words in the message's sentence.
    pub fn describe(&self) -> Message {
        described(self.colour(), self.period(), self.object(), self.value())
    }
}

impl Description {
    pub fn describe(&self) -> Message {
        described(&self.colour, &self.period, &self.object, self.value)
    }
}

fn described(colour: &str, period: &str, object: &str, value: u32) -> Message {
    crate::said!(
        "server.vintage.card.described",
        colour = colour,
        period = period,
        object = object,
        value = value
    )
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
    Described(Description),
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
        Ok(CardRef::Described(Description {
            id,
            object,
            colour,
            period,
            value,
            other,
        }))
    }
}

/// Every card described so far in the game, in the order described. A held game keeps it, so
/// each text is kept once (a game's cards share a few types, colours and periods) and a card
/// is its texts' numbers: 12 bytes and its id, not five strings and a map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    /// Every text of the game's cards, one after the other.
    texts: String,
    /// Where each text ends in `texts`.
    ends: Vec<u32>,
    /// The texts that are not ids, which the next card's texts may repeat.
    words: Vec<TextNo>,
    /// By card number.
    cards: Vec<Printed>,
    /// The card numbers sorted by id.
    by_id: Vec<CardNo>,
    /// Every card's other printed attributes, by card and then name.
    others: Vec<Other>,
}

#[derive(Debug, Clone, PartialEq)]
struct Printed {
    id: TextNo,
    object: TextNo,
    colour: TextNo,
    period: TextNo,
    value: u32,
}

#[derive(Debug, Clone, PartialEq)]
struct Other {
    card: CardNo,
    name: TextNo,
    text: TextNo,
}

/// Texts a game's cards may hold at most: far more than the box's 63 cards print (the rules
/// refuse a card past them long before), so that a text's number and a card's are two bytes
/// (each card adds its id, a text of its own).
const MOST_TEXTS: usize = u16::MAX as usize;

impl Catalogue {
    #[inline]
    fn text(&self, text: TextNo) -> &str {
        let at = usize::from(text.0);
        let start = if at == 0 {
            0
        } else {
            self.ends[at - 1] as usize
        };
        &self.texts[start..self.ends[at] as usize]
    }

    /// The texts held: each card's id, and every other text once.
    fn texts(&self) -> usize {
        self.ends.len()
    }

    fn push_text(&mut self, text: &str) -> TextNo {
        let no = TextNo(u16::try_from(self.ends.len()).expect("a text number left"));
        self.texts.push_str(text);
        self.ends.push(self.texts.len() as u32);
        no
    }

    /// A text that is not an id: the one already kept, if any.
    fn word(&mut self, text: &str) -> TextNo {
        if let Some(no) = self.words.iter().find(|no| self.text(**no) == text) {
            return *no;
        }
        let no = self.push_text(text);
        self.words.push(no);
        no
    }

    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn card(&self, no: CardNo) -> Card<'_> {
        Card {
            catalogue: self,
            no,
        }
    }

    /// Where `id` is, or would go, in the cards sorted by id.
    fn find_id(&self, id: &str) -> Result<usize, usize> {
        self.by_id
            .binary_search_by(|no| self.text(self.cards[no.at()].id).cmp(id))
    }

    /// The number of the card with this id.
    pub fn number_of(&self, id: &str) -> Option<CardNo> {
        let at = self.find_id(id).ok()?;
        Some(self.by_id[at])
    }

    pub fn get(&self, id: &str) -> Option<Card<'_>> {
        self.number_of(id).map(|no| self.card(no))
    }

    /// Every card, in the order described.
    pub fn cards(&self) -> impl Iterator<Item = Card<'_>> {
        (0..self.cards.len()).map(|at| self.card(CardNo(at as u16)))
    }

    /// Whether any card described in the game shows `value` for `attribute`.
    pub fn any_shows(&self, attribute: &Attribute, value: &str) -> bool {
        self.cards().any(|card| card.shows(attribute, value))
    }

    /// Adds a card whose id is not described yet, as the next number. The caller has checked
    /// that its texts have numbers left ([`MOST_TEXTS`]).
    fn add<'t>(
        &mut self,
        id: &str,
        [object, colour, period]: [&str; 3],
        value: u32,
        others: impl Iterator<Item = (&'t str, &'t str)>,
    ) -> CardNo {
        let no = CardNo(u16::try_from(self.cards.len()).expect("a card number left"));
        let printed = Printed {
            id: self.push_text(id),
            object: self.word(object),
            colour: self.word(colour),
            period: self.word(period),
            value,
        };
        self.cards.push(printed);
        for (name, text) in others {
            let (name, text) = (self.word(name), self.word(text));
            self.others.push(Other {
                card: no,
                name,
                text,
            });
        }
        let at = self.find_id(id).unwrap_or_else(|at| at);
        self.by_id.insert(at, no);
        no
    }

    fn describe(&mut self, card: &Description) -> CardNo {
        self.add(
            &card.id,
            [&card.object, &card.colour, &card.period],
            card.value,
            card.other
                .iter()
                .map(|(name, text)| (name.as_str(), text.as_str())),
        )
    }

    /// The table's own deck at the start of a game: its cards are named by number. Numbers
    /// are 1–63 (checked with the options).
    pub fn of_deck<'d>(deck: impl Iterator<Item = (u32, &'d super::DeckCard)>) -> Catalogue {
        let mut catalogue = Catalogue::default();
        for (number, card) in deck {
            catalogue.add(
                &number.to_string(),
                [card.object.trim(), card.colour.trim(), card.period.trim()],
                card.value,
                std::iter::empty(),
            );
        }
        catalogue
    }

    /// Adds the cards first described by an accepted event, in order: each keeps the number
    /// [`Naming`] gave it.
    pub fn learn(&mut self, new: Catalogue) {
        // Grown to the size it needs, not doubled: a held game keeps its lists as they are.
        self.texts.reserve_exact(new.texts.len());
        self.ends.reserve_exact(new.ends.len());
        self.words.reserve_exact(new.words.len());
        self.cards.reserve_exact(new.cards.len());
        self.by_id.reserve_exact(new.by_id.len());
        self.others.reserve_exact(new.others.len());
        for card in new.cards() {
            self.add(
                card.id(),
                [card.object(), card.colour(), card.period()],
                card.value(),
                card.others(),
            );
        }
    }
}

/// Resolves the cards one event names. Cards described for the first time wait here and join
/// the catalogue only when the whole event is accepted (a refused event changes nothing); they
/// are numbered after the catalogue's cards, in the order first named.
pub struct Naming<'a> {
    known: &'a Catalogue,
    new: Catalogue,
}

impl<'a> Naming<'a> {
    pub fn new(known: &'a Catalogue) -> Self {
        Self {
            known,
            new: Catalogue::default(),
        }
    }

    /// A card the catalogue or this event described.
    pub fn card(&self, no: CardNo) -> Card<'_> {
        match no.at().checked_sub(self.known.len()) {
            None => self.known.card(no),
            Some(at) => self.new.card(CardNo(at as u16)),
        }
    }

    /// The game's number of the event's new card `new` (numbered from 0 among the new).
    fn after_known(&self, new: CardNo) -> CardNo {
        // Within MOST_TEXTS (checked before a card is added): two bytes hold it.
        CardNo((new.at() + self.known.len()) as u16)
    }

    /// A card's id, for messages.
    pub fn id(&self, no: CardNo) -> &str {
        self.card(no).id()
    }

    /// The ids of `cards`, for messages.
    pub fn ids(&self, cards: &[CardNo]) -> Vec<&str> {
        cards.iter().map(|no| self.id(*no)).collect()
    }

    fn number_of(&self, id: &str) -> Option<CardNo> {
        self.known
            .number_of(id)
            .or_else(|| Some(self.after_known(self.new.number_of(id)?)))
    }

    /// The number of a named or described card; pointers are relative to the card.
    pub fn resolve(&mut self, card: &CardRef) -> Result<CardNo, RuleError> {
        match card {
            CardRef::Named(id) => self.number_of(id).ok_or_else(|| {
                RuleError::said(
                    "",
                    crate::said!(
                        "server.vintage.refusal.card_was_never_described_not",
                        id = format!("{:?}", id)
                    ),
                )
            }),
            CardRef::Described(card) => {
                if let Some(no) = self.number_of(&card.id) {
                    check_same(self.card(no), card)?;
                    return Ok(no);
                }
                // Its id, type, colour, period, and each other attribute's name and text.
                let texts = 4 + 2 * card.other.len();
                if self.known.texts() + self.new.texts() + texts > MOST_TEXTS {
                    return Err(RuleError::said(
                        "",
                        crate::said!(
                            "server.vintage.refusal.too_many_card_texts",
                            most = MOST_TEXTS,
                            cards = CARDS
                        ),
                    ));
                }
                let new = self.new.describe(card);
                Ok(self.after_known(new))
            }
        }
    }

    /// The cards this event described for the first time.
    pub fn learned(self) -> Catalogue {
        self.new
    }
}

/// rules: the id is "unique in the game" — one id, one physical card, one set of attributes.
fn check_same(earlier: Card<'_>, now: &Description) -> Result<(), RuleError> {
    let field = if !same_text(earlier.object(), &now.object) {
        "type"
    } else if !same_text(earlier.colour(), &now.colour) {
        "colour"
    } else if !same_text(earlier.period(), &now.period) {
        "period"
    } else if earlier.value() != now.value {
        "value"
    } else if let Some(name) = earlier
        .others()
        .map(|(name, _)| name)
        .chain(now.other.keys().map(String::as_str))
        .find(|name| match (earlier.other(name), now.other.get(*name)) {
            (Some(a), Some(b)) => !same_text(a, b),
            _ => true,
        })
    {
        name
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
    let shown = |text: Option<&str>| {
        text.map_or_else(
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
            shown_earlier = shown(earlier.other(field)),
            shown_now = shown(now.other.get(field).map(String::as_str))
        ),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn described(raw: serde_json::Value) -> CardRef {
        CardRef::parse(&raw).expect("a card description")
    }

    fn lamp(id: &str, colour: &str) -> CardRef {
        described(json!({"id": id, "type": "lamp", "colour": colour, "period": "60s", "value": 2}))
    }

    /// The cards `refs` describe, learned as one accepted event.
    fn learned(refs: &[CardRef]) -> (Catalogue, Vec<CardNo>) {
        let mut catalogue = Catalogue::default();
        let mut naming = Naming::new(&catalogue);
        let numbers = refs
            .iter()
            .map(|r| naming.resolve(r).expect("resolved"))
            .collect();
        let new = naming.learned();
        catalogue.learn(new);
        (catalogue, numbers)
    }

    #[test]
    fn cards_are_numbered_in_the_order_described_and_found_by_id() {
        let (catalogue, numbers) = learned(&[lamp("c9", "blue"), lamp("c1", "red")]);
        assert_eq!(numbers, vec![CardNo(0), CardNo(1)]);
        assert_eq!(catalogue.number_of("c1"), Some(CardNo(1)));
        assert_eq!(catalogue.number_of("c9"), Some(CardNo(0)));
        assert_eq!(catalogue.number_of("c5"), None);
        let c1 = catalogue.card(CardNo(1));
        assert_eq!(
            (c1.id(), c1.object(), c1.colour(), c1.period(), c1.value()),
            ("c1", "lamp", "red", "60s", 2)
        );
    }

    #[test]
    fn a_text_two_cards_print_is_kept_once() {
        let (catalogue, _) = learned(&[lamp("c1", "blue"), lamp("c2", "blue"), lamp("c3", "red")]);
        // Three ids, then lamp, blue, 60s and red: seven texts, not twelve.
        assert_eq!(catalogue.ends.len(), 7);
        assert_eq!(catalogue.texts, "c1lampblue60sc2c3red");
        assert_eq!(catalogue.card(CardNo(1)).colour(), "blue");
        assert_eq!(catalogue.card(CardNo(2)).colour(), "red");
    }

    #[test]
    fn a_card_named_twice_in_one_event_keeps_one_number_and_a_second_event_numbers_after_the_first()
    {
        let (mut catalogue, _) = learned(&[lamp("c1", "blue")]);
        let mut naming = Naming::new(&catalogue);
        let new = naming.resolve(&lamp("c2", "red")).expect("c2");
        assert_eq!(new, CardNo(1));
        assert_eq!(naming.resolve(&CardRef::Named("c2".into())), Ok(CardNo(1)));
        assert_eq!(naming.resolve(&CardRef::Named("c1".into())), Ok(CardNo(0)));
        assert_eq!(naming.ids(&[CardNo(1), CardNo(0)]), vec!["c2", "c1"]);
        let learned = naming.learned();
        catalogue.learn(learned);
        assert_eq!(catalogue.len(), 2);
        assert_eq!(catalogue.get("c2").map(|c| c.colour()), Some("red"));
    }

    #[test]
    fn other_attributes_are_kept_per_card_and_read_by_name_ignoring_case() {
        let (catalogue, _) = learned(&[
            described(
                json!({"id": "c1", "type": "lamp", "colour": "blue", "period": "60s",
                             "value": 1, "Maker": "Arteluce", "room": "hall"}),
            ),
            described(
                json!({"id": "c2", "type": "lamp", "colour": "blue", "period": "60s",
                             "value": 1, "maker": "Flos"}),
            ),
        ]);
        let (c1, c2) = (catalogue.card(CardNo(0)), catalogue.card(CardNo(1)));
        assert_eq!(
            c1.others().collect::<Vec<_>>(),
            vec![("Maker", "Arteluce"), ("room", "hall")]
        );
        let maker = Attribute::parse("MAKER", false).expect("an attribute");
        assert_eq!(c1.attribute(&maker), Some("Arteluce"));
        assert_eq!(c2.attribute(&maker), Some("Flos"));
        let exact = Attribute::parse("maker", true).expect("an attribute");
        assert_eq!(c1.attribute(&exact), None);
        assert!(catalogue.any_shows(&maker, "flos"));
        assert!(!catalogue.any_shows(&maker, "Kartell"));
    }

    #[test]
    fn a_card_described_again_differently_is_refused_and_the_same_way_is_its_number() {
        let (catalogue, _) = learned(&[lamp("c1", "blue")]);
        let mut naming = Naming::new(&catalogue);
        assert_eq!(naming.resolve(&lamp("c1", " Blue ")), Ok(CardNo(0)));
        let err = naming.resolve(&lamp("c1", "red")).unwrap_err();
        assert_eq!(err.pointer, "/colour");
        assert_eq!(
            err.rule,
            "card c1 was described as a blue 60s lamp worth 2; the same card cannot now be a red \
             60s lamp worth 2"
        );
    }

    #[test]
    fn a_game_cannot_describe_more_card_texts_than_its_numbers_hold() {
        let mut catalogue = Catalogue::default();
        // Three words, then ids up to one text short of the most a game holds.
        for n in 0..MOST_TEXTS - 4 {
            catalogue.add(
                &format!("c{n:05}"),
                ["lamp", "blue", "60s"],
                1,
                std::iter::empty(),
            );
        }
        assert_eq!(catalogue.texts(), MOST_TEXTS - 1);
        let mut naming = Naming::new(&catalogue);
        assert_eq!(
            naming.resolve(&CardRef::Named("c00007".into())),
            Ok(CardNo(7))
        );
        let err = naming.resolve(&lamp("one more", "blue")).unwrap_err();
        assert_eq!(err.pointer, "");
        assert_eq!(
            err.rule,
            "this event describes a card never seen before, but the game's cards already print \
             as many texts as a game may keep (65535); the box holds 63 cards"
        );
        assert!(naming.learned().cards.is_empty());
    }
}
