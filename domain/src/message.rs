//! Words for a person, in any language the catalogues speak: a key into the catalogues
//! (`i18n/<language>.json` at the repository's root) and the values its text names.
//!
//! The domain says *what* happened (`server.mint_condition.round.too_few_cards` with `name`,
//! `cards`, `expected`); a catalogue says it in a language. English is built in, so a message
//! shown or compared here reads as before; the HTTP layer picks the player's language.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{LazyLock, OnceLock};

/// Something said to a person: text from a catalogue with named values filled in, or data
/// (a name, numbers) that every language shows as it is.
#[derive(Debug, Clone, Eq)]
pub enum Message {
    /// Data said the same in every language: a player's name, a field's name, numbers. Words
    /// for a person are never plain: they come from the catalogues (see [`Message::data`]).
    Plain(Cow<'static, str>),
    /// The catalogues' text for `key`, its `{name}` placeholders filled from `args`.
    Keyed {
        key: &'static Site,
        args: Vec<(&'static str, Arg)>,
    },
}

/// Where a message is said in the code: its catalogue key, and its English text found and cut
/// into pieces once (a score writes hundreds of lines; each would otherwise look its text up
/// and search it for placeholders again).
#[derive(Debug)]
pub struct Site {
    pub key: &'static str,
    english: OnceLock<Option<Template>>,
}

/// An English text cut into its pieces, each placeholder by the place of its value among the
/// site's values: a `said!` names its values in the same order every time.
#[derive(Debug)]
struct Template(Box<[Piece]>);

#[derive(Debug)]
enum Piece {
    Text(&'static str),
    /// The value at this place of the args, which has this name.
    Value(usize, &'static str),
}

impl Template {
    /// `text` cut as [`fill`] reads it; a placeholder no value names stays as written.
    fn cut(text: &'static str, args: &[(&'static str, Arg)]) -> Self {
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                break;
            };
            let name = &after[..close];
            match args.iter().position(|(n, _)| *n == name) {
                Some(at) => {
                    if open > 0 {
                        pieces.push(Piece::Text(&rest[..open]));
                    }
                    pieces.push(Piece::Value(at, args[at].0));
                }
                None => pieces.push(Piece::Text(&rest[..open + close + 2])),
            }
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest));
        }
        Template(pieces.into_boxed_slice())
    }

    fn fill<W: fmt::Write>(
        &self,
        args: &[(&'static str, Arg)],
        catalogue: &Catalogue,
        out: &mut W,
    ) -> fmt::Result {
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => out.write_str(text)?,
                Piece::Value(at, name) => {
                    // The same site passes the same names in the same order; should another
                    // order ever come, the value is found by its name.
                    let arg = match args.get(*at) {
                        Some((n, arg)) if std::ptr::eq(*n, *name) || n == name => Some(arg),
                        _ => args.iter().find(|(n, _)| n == name).map(|(_, arg)| arg),
                    };
                    match arg {
                        Some(arg) => arg.render_into(catalogue, out)?,
                        None => write!(out, "{{{name}}}")?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// Two sites are the same message when they have the same key.
impl PartialEq for Site {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Site {}

impl Site {
    pub const fn new(key: &'static str) -> Self {
        Self {
            key,
            english: OnceLock::new(),
        }
    }

    /// The English text of the key, cut for these args (`None` for a key the English file
    /// lacks, which a test rules out).
    fn english(&self, args: &[(&'static str, Arg)]) -> Option<&Template> {
        self.english
            .get_or_init(|| {
                english()
                    .text(self.key)
                    .map(|text| Template::cut(text, args))
            })
            .as_ref()
    }
}

/// A value a message names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A number, written with Latin digits in every language.
    Int(i64),
    /// Points with their sign, as a score sheet writes them: `+2`, `−2`, `0`.
    Signed(i64),
    /// Text said as it is in every language: a player's name, a card's printed name, a field.
    Text(Cow<'static, str>),
    /// Words of their own, said in the same language as the message around them.
    Said(Message),
}

/// Builds a [`Message`] from a catalogue key and named values:
/// `said!("server.mint_condition.line.kind", kind = "Fine Wine", n = 3)`.
#[macro_export]
macro_rules! said {
    ($key:literal $(, $name:ident = $value:expr)* $(,)?) => {
        $crate::message::Message::Keyed {
            key: {
                static SITE: $crate::message::Site = $crate::message::Site::new($key);
                &SITE
            },
            args: vec![$((stringify!($name), $crate::message::Arg::from($value))),*],
        }
    };
}

/// One language's texts, key → text.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    texts: HashMap<String, String, BuildHasherDefault<KeyHasher>>,
}

/// A score looks up a text for every breakdown line; keys are short, trusted (they come from
/// the program, never from a request) and few, so a simple multiply-rotate hash is enough.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Catalogue {
    /// A catalogue file: one flat JSON object of key → text.
    pub fn parse(json: &str) -> Result<Self, serde_json::Error> {
        let texts: std::collections::BTreeMap<String, String> = serde_json::from_str(json)?;
        Ok(Self {
            texts: texts.into_iter().collect(),
        })
    }

    pub fn text(&self, key: &str) -> Option<&str> {
        self.texts.get(key).map(String::as_str)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.texts.keys().map(String::as_str)
    }
}

/// The English catalogue, the one every other language falls back to key by key.
pub const ENGLISH_FILE: &str = include_str!("../../i18n/en.json");

static ENGLISH: LazyLock<Catalogue> = LazyLock::new(|| {
    // The file is part of the build; a test reads it, so a broken one never ships.
    Catalogue::parse(ENGLISH_FILE).unwrap_or_default()
});

/// The English catalogue.
pub fn english() -> &'static Catalogue {
    &ENGLISH
}

impl Message {
    /// Text that is data, not words: a player's or a prize's name, a quoted field, a card's id,
    /// a sum of numbers. It reads the same in every language, so it has no catalogue key.
    /// (There is deliberately no `From<String>`: a sentence must not slip in untranslated.)
    pub fn data(text: impl Into<Cow<'static, str>>) -> Self {
        Message::Plain(text.into())
    }

    /// Said in `catalogue`'s language; a key it lacks is said in English.
    pub fn render(&self, catalogue: &Catalogue) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = self.render_into(catalogue, &mut out);
        out
    }

    /// Said in English.
    pub fn english(&self) -> String {
        self.render(english())
    }

    /// The catalogue key, when the message has one.
    pub fn key(&self) -> Option<&'static str> {
        match self {
            Message::Plain(_) => None,
            Message::Keyed { key, .. } => Some(key.key),
        }
    }

    /// Writes the message in `catalogue`'s language into `out` (a String, or a serialiser's
    /// output: a score's lines are written straight into its JSON).
    fn render_into<W: fmt::Write>(&self, catalogue: &Catalogue, out: &mut W) -> fmt::Result {
        match self {
            Message::Plain(text) => out.write_str(text),
            Message::Keyed { key, args } => {
                // Every key the code uses is in the English file (a test checks it), so the last
                // fallback, the key itself, is never shown.
                let other = (!std::ptr::eq(catalogue, english()))
                    .then(|| catalogue.text(key.key))
                    .flatten();
                match (other, key.english(args)) {
                    (Some(text), _) => fill(text, args, catalogue, out),
                    (None, Some(english)) => english.fill(args, catalogue, out),
                    (None, None) => out.write_str(key.key),
                }
            }
        }
    }
}

/// `{name}` in `template` replaced by the argument of that name; other text kept as it is.
fn fill<W: fmt::Write>(
    template: &str,
    args: &[(&'static str, Arg)],
    catalogue: &Catalogue,
    out: &mut W,
) -> fmt::Result {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.write_str(&rest[..open])?;
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return out.write_str(&rest[open..]);
        };
        let name = &after[..close];
        match args.iter().find(|(n, _)| *n == name) {
            Some((_, arg)) => arg.render_into(catalogue, out)?,
            None => out.write_str(&rest[open..open + close + 2])?,
        }
        rest = &after[close + 1..];
    }
    out.write_str(rest)
}

impl Arg {
    fn render_into<W: fmt::Write>(&self, catalogue: &Catalogue, out: &mut W) -> fmt::Result {
        match self {
            Arg::Int(n) => write_int(out, *n),
            Arg::Signed(n) if *n > 0 => {
                out.write_str("+")?;
                write_int(out, *n)
            }
            Arg::Signed(n) if *n < 0 => {
                out.write_str("−")?;
                write_digits(out, n.unsigned_abs())
            }
            Arg::Signed(_) => out.write_str("0"),
            Arg::Text(text) => out.write_str(text),
            Arg::Said(message) => message.render_into(catalogue, out),
        }
    }
}

/// `n` in decimal, as `{n}` writes it, in one write (a score writes hundreds of numbers; the
/// formatting machinery costs more than the digits).
fn write_int<W: fmt::Write>(out: &mut W, n: i64) -> fmt::Result {
    if n < 0 {
        out.write_str("-")?;
    }
    write_digits(out, n.unsigned_abs())
}

fn write_digits<W: fmt::Write>(out: &mut W, mut n: u64) -> fmt::Result {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.write_str(std::str::from_utf8(&digits[start..]).unwrap_or_default())
}

/// Said in English.
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render_into(english(), f)
    }
}

/// Serialised in English: what the domain's own JSON (and its benchmark) writes. A keyed
/// message is filled in into a buffer kept by the thread, then written as one string: writing
/// its pieces one by one into a JSON serialiser (each through the escaping of a string) cost
/// more than the text itself.
impl serde::Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        thread_local! {
            static TEXT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        match self {
            Message::Plain(text) => serializer.serialize_str(text),
            keyed => TEXT.with(|text| match text.try_borrow_mut() {
                Ok(mut text) => {
                    text.clear();
                    // Writing into a String cannot fail.
                    let _ = keyed.render_into(english(), &mut *text);
                    serializer.serialize_str(&text)
                }
                // Only if a serialiser said a message while saying another.
                Err(_) => serializer.serialize_str(&keyed.english()),
            }),
        }
    }
}

impl Default for Message {
    fn default() -> Self {
        Message::Plain(Cow::Borrowed(""))
    }
}

/// Two messages are equal when they say the same in English, however they were built.
impl PartialEq for Message {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Message::Plain(a), Message::Plain(b)) => a == b,
            (Message::Keyed { key: a, args: x }, Message::Keyed { key: b, args: y })
                if a.key == b.key && x == y =>
            {
                true
            }
            _ => self.english() == other.english(),
        }
    }
}

impl PartialEq<str> for Message {
    fn eq(&self, other: &str) -> bool {
        match self {
            Message::Plain(text) => text == other,
            keyed => keyed.english() == other,
        }
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl PartialEq<String> for Message {
    fn eq(&self, other: &String) -> bool {
        self == other.as_str()
    }
}

/// Tests write expected lines as plain text; outside tests words come from the catalogues.
#[cfg(test)]
impl From<&'static str> for Message {
    fn from(text: &'static str) -> Self {
        Message::Plain(Cow::Borrowed(text))
    }
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(n: $t) -> Self {
                Arg::Int(n as i64)
            }
        }

        impl From<&$t> for Arg {
            fn from(n: &$t) -> Self {
                Arg::Int(*n as i64)
            }
        }
    )*};
}
int_arg!(i32, i64, u8, u16, u32, u64, usize);

impl Arg {
    /// Text the program holds for good (a card's printed name, a code): nothing is copied.
    pub fn word(text: &'static str) -> Self {
        Arg::Text(Cow::Borrowed(text))
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Self {
        Arg::Text(Cow::Owned(text.to_owned()))
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Self {
        Arg::Text(Cow::Owned(text))
    }
}

impl From<&serde_json::Value> for Arg {
    fn from(value: &serde_json::Value) -> Self {
        Arg::Text(Cow::Owned(value.to_string()))
    }
}

impl From<serde_json::Error> for Arg {
    fn from(error: serde_json::Error) -> Self {
        Arg::Text(Cow::Owned(error.to_string()))
    }
}

impl From<char> for Arg {
    fn from(c: char) -> Self {
        Arg::Text(Cow::Owned(c.to_string()))
    }
}

impl From<&&str> for Arg {
    fn from(text: &&str) -> Self {
        Arg::Text(Cow::Owned((*text).to_owned()))
    }
}

impl From<&String> for Arg {
    fn from(text: &String) -> Self {
        Arg::Text(Cow::Owned(text.clone()))
    }
}

impl From<Message> for Arg {
    fn from(message: Message) -> Self {
        Arg::Said(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue(pairs: &[(&str, &str)]) -> Catalogue {
        Catalogue {
            texts: pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn placeholders_are_filled_by_name_in_any_order() {
        let french = catalogue(&[("test.collected", "{cards} cartes pour {name}")]);
        let message = Message::Keyed {
            key: Box::leak(Box::new(Site::new("test.collected"))),
            args: vec![("name", Arg::from("Ann")), ("cards", Arg::from(8u32))],
        };
        assert_eq!(message.render(&french), "8 cartes pour Ann");
    }

    #[test]
    fn a_nested_message_is_said_in_the_same_language() {
        let french = catalogue(&[
            ("test.outer", "{inner} !"),
            ("test.inner", "bonjour {name}"),
        ]);
        let inner = Message::Keyed {
            key: Box::leak(Box::new(Site::new("test.inner"))),
            args: vec![("name", Arg::from("Bo"))],
        };
        let outer = Message::Keyed {
            key: Box::leak(Box::new(Site::new("test.outer"))),
            args: vec![("inner", Arg::from(inner))],
        };
        assert_eq!(outer.render(&french), "bonjour Bo !");
    }

    #[test]
    fn numbers_are_written_as_format_writes_them_and_points_with_their_sign() {
        let french = catalogue(&[("test.numbers", "{a} {b} {c} {d} {e} {f} {g}")]);
        let message = Message::Keyed {
            key: Box::leak(Box::new(Site::new("test.numbers"))),
            args: vec![
                ("a", Arg::Int(0)),
                ("b", Arg::Int(-17)),
                ("c", Arg::Int(i64::MIN)),
                ("d", Arg::Int(1_234_567)),
                ("e", Arg::Signed(12)),
                ("f", Arg::Signed(-3)),
                ("g", Arg::Signed(0)),
            ],
        };
        assert_eq!(
            message.render(&french),
            format!("0 -17 {} 1234567 +12 −3 0", i64::MIN)
        );
    }

    #[test]
    fn a_keyed_message_serialises_as_its_english_text_with_quotes_escaped() {
        let message = crate::said!(
            "server.words.refusal.needs",
            subject = "a \"card\"",
            field = 3
        );
        let json = serde_json::to_string(&vec![message.clone(), message]).expect("serialises");
        assert_eq!(json, r#"["a \"card\" needs 3","a \"card\" needs 3"]"#);
    }

    #[test]
    fn an_unknown_placeholder_and_a_lone_brace_stay_as_written() {
        let mut out = String::new();
        let _ = fill("{x} and {", &[], &Catalogue::default(), &mut out);
        assert_eq!(out, "{x} and {");
        let args = [("n", Arg::Int(3))];
        let mut cut = String::new();
        let _ =
            Template::cut("{n}{x} and {n} {", &args).fill(&args, &Catalogue::default(), &mut cut);
        assert_eq!(cut, "3{x} and 3 {");
    }

    #[test]
    fn a_cut_template_finds_a_value_by_name_when_the_order_differs() {
        let first = [("a", Arg::Int(1)), ("b", Arg::Int(2))];
        let template = Template::cut("{b}-{a}", &first);
        let swapped = [("b", Arg::Int(20)), ("a", Arg::Int(10))];
        let mut out = String::new();
        let _ = template.fill(&swapped, &Catalogue::default(), &mut out);
        assert_eq!(out, "20-10");
    }

    #[test]
    fn data_is_said_as_it_is_in_every_language() {
        let message = Message::data("as it is");
        assert_eq!(message.render(&catalogue(&[])), "as it is");
        assert_eq!(message, "as it is");
    }

    #[test]
    fn the_english_catalogue_is_a_flat_object_of_texts() {
        let parsed: serde_json::Value = serde_json::from_str(ENGLISH_FILE).expect("en.json");
        let object = parsed.as_object().expect("one object");
        assert!(object.values().all(serde_json::Value::is_string));
        assert_eq!(english().keys().count(), object.len());
    }
}
