//! The languages the API answers in, and which one a request asks for: `Accept-Language` (or
//! `?lang=`) picks one, English by default. The texts are the catalogues
//! `i18n/<language>.json` at the repository's root, built in. Answers are said in it by
//! [`crate::speaking`].

use std::sync::LazyLock;

use actix_web::HttpRequest;
use actix_web::http::header;
use tabletally_domain::message::{self, Catalogue};

/// A language the catalogues speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    #[default]
    English,
    French,
    Persian,
}

const FRENCH_FILE: &str = include_str!("../../i18n/fr.json");
const PERSIAN_FILE: &str = include_str!("../../i18n/fa.json");

// Parsed once; a test parses the files, so a broken one never ships.
static FRENCH: LazyLock<Catalogue> =
    LazyLock::new(|| Catalogue::parse(FRENCH_FILE).unwrap_or_default());
static PERSIAN: LazyLock<Catalogue> =
    LazyLock::new(|| Catalogue::parse(PERSIAN_FILE).unwrap_or_default());

impl Language {
    pub const ALL: [Language; 3] = [Language::English, Language::French, Language::Persian];

    /// The language's tag (BCP 47) as `Accept-Language` and `Content-Language` write it.
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::French => "fr",
            Language::Persian => "fa",
        }
    }

    pub fn catalogue(self) -> &'static Catalogue {
        match self {
            Language::English => message::english(),
            Language::French => &FRENCH,
            Language::Persian => &PERSIAN,
        }
    }

    /// A tag's language: its primary subtag decides (`fr-CA` is French), any case.
    pub fn of_tag(tag: &str) -> Option<Language> {
        let primary = tag.split('-').next().unwrap_or_default();
        Language::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(primary))
    }

    /// The language an `Accept-Language` value prefers most among ours (RFC 9110 §12.5.4):
    /// the highest `q` wins, the earlier of equal ones, `q=0` means "not this one"; `*` and
    /// anything unknown or unreadable leave English.
    pub fn from_accept_language(value: &str) -> Language {
        let mut best: Option<(u16, Language)> = None;
        for range in value.split(',') {
            let mut parts = range.split(';');
            let tag = parts.next().unwrap_or_default().trim();
            let mut quality = 1000;
            for param in parts {
                if let Some((name, q)) = param.split_once('=')
                    && name.trim().eq_ignore_ascii_case("q")
                {
                    quality = parse_quality(q.trim()).unwrap_or(0);
                }
            }
            let Some(language) = Language::of_tag(tag) else {
                continue;
            };
            if quality > 0 && best.is_none_or(|(q, _)| quality > q) {
                best = Some((quality, language));
            }
        }
        best.map_or(Language::English, |(_, language)| language)
    }

    /// The language a request asks for: `?lang=` (the streams take it: a browser's
    /// `EventSource` cannot send headers), else `Accept-Language`, else English.
    pub fn of(request: &HttpRequest) -> Language {
        Language::of_query(request.query_string()).unwrap_or_else(|| {
            request
                .headers()
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .map_or(Language::English, Language::from_accept_language)
        })
    }

    /// The language a query string's `lang` names, if it names one of ours.
    fn of_query(query: &str) -> Option<Language> {
        if !query.contains("lang=") {
            return None;
        }
        form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "lang")
            .and_then(|(_, tag)| Language::of_tag(&tag))
    }
}

/// `q` as thousandths: `1`, `0.8`, `0.125`; `None` for anything else.
fn parse_quality(q: &str) -> Option<u16> {
    let (whole, fraction) = q.split_once('.').unwrap_or((q, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{fraction:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// Says in the OpenAPI document that every operation takes `Accept-Language` and answers with
/// `Content-Language` (one shared header, referred to from each answer).
pub fn describe(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{Ref, RefOr, Required};

    let tags: Vec<serde_json::Value> = Language::ALL.iter().map(|l| l.tag().into()).collect();
    // The parameter is written out in each operation (clients and tests read an operation's
    // parameters by name); the answer's header is shared.
    let accept_language = ParameterBuilder::new()
        .name("Accept-Language")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "The language of the answer's words (`en`, `fr` or `fa`, q-values as browsers send \
             them; English otherwise): problems' `title` and `detail`, and a score's labels, \
             details and notes. Machine fields never change. See `Content-Language`.",
        ))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .examples([serde_json::json!("fr, en;q=0.5")]),
        ))
        .build();
    let components = api.components.get_or_insert_with(Default::default);
    components.headers.insert(
        "ContentLanguage".into(),
        RefOr::T(
            HeaderBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(tags)),
                ))
                .description(Some(
                    "The language the answer's words are in (`en`, `fr` or `fa`), as \
                     `Accept-Language` asked; `en` when it named none of them."
                        .to_owned(),
                ))
                .build(),
        ),
    );
    for item in api.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
            &mut item.head,
            &mut item.options,
        ];
        for operation in operations.into_iter().flatten() {
            operation
                .parameters
                .get_or_insert_with(Vec::new)
                .push(RefOr::T(accept_language.clone()));
            for response in operation.responses.responses.values_mut() {
                if let RefOr::T(response) = response {
                    response.headers.insert(
                        "Content-Language".into(),
                        RefOr::Ref(Ref::new("#/components/headers/ContentLanguage")),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_highest_quality_among_our_languages_wins() {
        assert_eq!(
            Language::from_accept_language("en;q=0.5, fa;q=0.9, fr;q=0.8"),
            Language::Persian
        );
        assert_eq!(
            Language::from_accept_language("de-DE, fr-CA;q=0.7, en;q=0.3"),
            Language::French
        );
    }

    #[test]
    fn equal_qualities_keep_the_order_they_were_sent_in() {
        assert_eq!(Language::from_accept_language("fa, fr"), Language::Persian);
        assert_eq!(
            Language::from_accept_language("FR;q=1.0, fa;q=1"),
            Language::French
        );
    }

    #[test]
    fn unknown_refused_or_unreadable_ranges_leave_english() {
        assert_eq!(Language::from_accept_language("de, ja"), Language::English);
        assert_eq!(Language::from_accept_language("fr;q=0"), Language::English);
        assert_eq!(Language::from_accept_language("*"), Language::English);
        assert_eq!(Language::from_accept_language("fr;q=2"), Language::English);
        assert_eq!(Language::from_accept_language(""), Language::English);
    }

    #[test]
    fn a_lang_parameter_names_the_language_and_an_unknown_one_is_no_choice() {
        assert_eq!(Language::of_query("lang=fr"), Some(Language::French));
        assert_eq!(
            Language::of_query("access_token=x&lang=fa"),
            Some(Language::Persian)
        );
        assert_eq!(Language::of_query("lang=de"), None);
        assert_eq!(Language::of_query("slang=fr"), None);
        assert_eq!(Language::of_query(""), None);
    }

    #[test]
    fn qualities_are_read_to_three_decimals() {
        assert_eq!(parse_quality("0.125"), Some(125));
        assert_eq!(parse_quality("1"), Some(1000));
        assert_eq!(parse_quality("0.5"), Some(500));
        assert_eq!(parse_quality("0.1234"), None);
        assert_eq!(parse_quality("1.5"), None);
    }

    /// Every `"server.…"` key written in the server's code (domain and api).
    fn keys_in_code() -> std::collections::BTreeSet<String> {
        fn walk(dir: &std::path::Path, keys: &mut std::collections::BTreeSet<String>) {
            for entry in std::fs::read_dir(dir).expect("source folder").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, keys);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("source file");
                    for (at, _) in text.match_indices("\"server.") {
                        let rest = &text[at + 1..];
                        let end = rest
                            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                            .unwrap_or(rest.len());
                        if rest[end..].starts_with('"') && end > "server.".len() {
                            keys.insert(rest[..end].to_owned());
                        }
                    }
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut keys = std::collections::BTreeSet::new();
        walk(&root.join("src"), &mut keys);
        walk(&root.join("../domain/src"), &mut keys);
        keys
    }

    fn file_of(language: Language) -> &'static str {
        match language {
            Language::English => message::ENGLISH_FILE,
            Language::French => FRENCH_FILE,
            Language::Persian => PERSIAN_FILE,
        }
    }

    /// `{name}` placeholders of a text.
    fn placeholders(text: &str) -> std::collections::BTreeSet<&str> {
        text.split('{')
            .skip(1)
            .filter_map(|piece| piece.split_once('}').map(|(name, _)| name))
            .collect()
    }

    #[test]
    fn every_server_key_in_the_code_is_in_every_catalogue_and_every_server_key_there_is_used() {
        let used = keys_in_code();
        assert!(
            used.len() > 100,
            "only {} keys found in the code",
            used.len()
        );
        for language in Language::ALL {
            let catalogue = Catalogue::parse(file_of(language)).expect("catalogue parses");
            let listed: std::collections::BTreeSet<String> = catalogue
                .keys()
                .filter(|k| k.starts_with("server."))
                .map(str::to_owned)
                .collect();
            let missing: Vec<&String> = used.difference(&listed).collect();
            let unused: Vec<&String> = listed.difference(&used).collect();
            assert!(
                missing.is_empty(),
                "{}.json lacks {missing:?}",
                language.tag()
            );
            assert!(
                unused.is_empty(),
                "{}.json has unused {unused:?}",
                language.tag()
            );
        }
    }

    #[test]
    fn every_server_text_names_the_same_placeholders_in_every_language() {
        let english = message::english();
        for language in [Language::French, Language::Persian] {
            for key in english.keys().filter(|k| k.starts_with("server.")) {
                let text = language.catalogue().text(key).unwrap_or_default();
                assert_eq!(
                    placeholders(text),
                    placeholders(english.text(key).unwrap_or_default()),
                    "{key} in {}.json",
                    language.tag()
                );
            }
        }
    }

    #[test]
    fn every_server_text_is_said_with_latin_digits_as_the_server_writes_numbers() {
        for language in Language::ALL {
            for key in language
                .catalogue()
                .keys()
                .filter(|k| k.starts_with("server."))
            {
                let text = language.catalogue().text(key).unwrap_or_default();
                assert!(
                    !text.chars().any(|c| ('\u{6f0}'..='\u{6f9}').contains(&c)),
                    "{key} in {}.json has Persian digits",
                    language.tag()
                );
            }
        }
    }

    #[test]
    fn every_catalogue_file_is_one_flat_object_sorted_by_key_two_space_indent_one_key_a_line() {
        for language in Language::ALL {
            let file = file_of(language);
            let texts: std::collections::BTreeMap<String, String> =
                serde_json::from_str(file).expect("a flat object of texts");
            let written = serde_json::to_string_pretty(&texts).expect("serialises") + "\n";
            assert!(
                file == written,
                "{}.json is not in the shared format",
                language.tag()
            );
        }
    }
}
