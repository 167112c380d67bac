//! Tests only (and other crates' tests, with the `untranslated` feature): finds English left
//! in a message said in French or Persian.
//!
//! A message is fully said in a language when every word of it is either data (a name, a
//! printed card name, a number, an identifier, a quoted value) or a word that language's own
//! catalogue uses. Words that came in as text from the code ("in this round") are neither.
//! Every refusal built in a test is checked (see [`crate::RuleError::said`]), so the negative
//! tests of every engine walk every refusal they can produce.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::message::{Catalogue, Message};

/// One language: its catalogue and the Latin words its server texts use themselves
/// (identifiers the translators keep, such as `strict_counts` or `round`).
pub struct Language {
    pub code: &'static str,
    pub catalogue: Catalogue,
    own_words: HashSet<String>,
}

fn language(code: &'static str, file: &str) -> Language {
    let catalogue = Catalogue::parse(file).unwrap_or_default();
    let own_words = catalogue
        .keys()
        .filter(|key| key.starts_with("server."))
        .filter_map(|key| catalogue.text(key))
        .flat_map(|text| latin_words(&without_placeholders(text)))
        .collect();
    Language {
        code,
        catalogue,
        own_words,
    }
}

pub static FRENCH: LazyLock<Language> =
    LazyLock::new(|| language("fr", include_str!("../../i18n/fr.json")));
pub static PERSIAN: LazyLock<Language> =
    LazyLock::new(|| language("fa", include_str!("../../i18n/fa.json")));

/// The words of `message` said in `language` that are neither data nor the language's own:
/// empty when it is fully said in that language.
pub fn english_left(message: &Message, language: &Language) -> Vec<String> {
    english_left_in(&message.render(&language.catalogue), language)
}

/// The words of a text already said in `language` (an answer's) that are neither data nor
/// the language's own.
pub fn english_left_in(said: &str, language: &Language) -> Vec<String> {
    latin_words(&without_data(said))
        .into_iter()
        .filter(|word| !language.own_words.contains(word) && !DATA_WORDS.contains(&word.as_str()))
        .collect()
}

/// Words the tests give as data that read like English: one-word ids, event types and option
/// keys listed in a refusal, the apps a play's id names, colours a player wears, the words a
/// Vintage table types on its cards and the names of its cards' own attributes. Said as given
/// in every language.
const DATA_WORDS: &[&str] = &[
    // Mint Condition's card ids; options of the games
    "autographed",
    "memories",
    "deck",
    "lucky",
    "protects",
    // Mind Up!'s colour ids, and colours players wear
    "orange",
    "pink",
    "blue",
    "green",
    "purple",
    "red",
    // The log's own event types, listed as ids in a refusal of an unknown type
    "retract",
    "correct",
    "abandon",
    // The apps an imported play's id names (`bgstats:…`, `bgg:…`)
    "bgstats",
    "bgg",
    // Vintage cards as the tests' tables describe them
    "lamp",
    "radio",
    "chair",
    "material",
    "size",
];

/// Panics when `message` keeps English words in French or Persian, naming them.
pub fn assert_said_in_french_and_persian(message: &Message) {
    for language in [&*FRENCH, &*PERSIAN] {
        let left = english_left(message, language);
        assert!(
            left.is_empty(),
            "English left in {}: {:?} in {:?} (English: {:?})",
            language.code,
            left,
            message.render(&language.catalogue),
            message.english()
        );
    }
}

fn without_placeholders(text: &str) -> String {
    cut_between(text, '{', '}')
}

/// `text` without what is data in every language: quoted values, names (capitalised, as
/// players' names and printed card names are), identifiers, numbers and JSON's literals.
fn without_data(text: &str) -> String {
    let mut text = text.to_owned();
    for (open, close) in [('"', '"'), ('“', '”'), ('«', '»'), ('‘', '’'), ('`', '`')] {
        text = cut_between(&text, open, close);
    }
    text.split(|c: char| c.is_whitespace() || ",;:()[]{}.?!،؛".contains(c))
        .filter(|token| {
            let is_name = token.chars().next().is_some_and(char::is_uppercase);
            let is_identifier = token
                .chars()
                .any(|c| c.is_ascii_digit() || "_-/=&<>+×÷←→".contains(c));
            let is_literal = ["true", "false", "null"].contains(token);
            !(is_name || is_identifier || is_literal)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with every `open … close` span taken out.
fn cut_between(text: &str, open: char, close: char) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        let after = &rest[at + open.len_utf8()..];
        match after.find(close) {
            Some(end) => rest = &after[end + close.len_utf8()..],
            None => {
                rest = after;
                break;
            }
        }
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// The words written in Latin letters (an identifier such as `strict_counts` is one word).
fn latin_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|word| word.chars().any(|c| c.is_ascii_alphabetic()))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::said;

    #[test]
    fn a_sentence_in_the_catalogues_with_names_and_numbers_is_fully_said() {
        let message = said!(
            "server.mint_condition.refusal.has_sleeve_me_up_card",
            name = "Ann",
            sleeves = 1u32,
            allowed = 2u32,
            sleeve_protects = 2u32
        );
        assert_eq!(english_left(&message, &FRENCH), Vec::<String>::new());
        assert_eq!(english_left(&message, &PERSIAN), Vec::<String>::new());
    }

    #[test]
    fn no_catalogue_switches_an_option_by_setting_it_to_true_or_false() {
        let english = crate::message::english();
        for (code, catalogue) in [
            ("en", english),
            ("fr", &FRENCH.catalogue),
            ("fa", &PERSIAN.catalogue),
        ] {
            for key in catalogue.keys().filter(|k| k.starts_with("server.")) {
                let text = catalogue.text(key).unwrap_or_default();
                let switched = ["to true", "to false", "à true", "à false"]
                    .iter()
                    .any(|w| text.contains(w))
                    || text.contains("true کنید")
                    || text.contains("false کنید");
                assert!(!switched, "{code} {key}: {text}");
            }
        }
    }

    #[test]
    fn a_list_is_joined_with_the_languages_own_commas_and_and() {
        let names = crate::score::said_names(&["Ann", "Bo", "Cy"]);
        assert_eq!(names.render(&FRENCH.catalogue), "Ann, Bo et Cy");
        assert_eq!(names.render(&PERSIAN.catalogue), "Ann، Bo و Cy");
    }

    #[test]
    fn english_words_given_as_a_value_are_found_in_french_and_persian() {
        let message = said!(
            "server.list.and",
            first = "Ann 6 in this round",
            last = "2 in earlier rounds"
        );
        for language in [&*FRENCH, &*PERSIAN] {
            let left = english_left(&message, language);
            assert!(
                left.contains(&"this".to_owned()) && left.contains(&"earlier".to_owned()),
                "{left:?}"
            );
        }
    }
}
