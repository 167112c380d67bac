//! The message catalogues (`i18n/<lang>.json` at the repository's root): one flat object per
//! language, key → text, keys sorted, two-space indent, one key a line. Every language has every
//! key; each key is used by the code that owns its prefix, and every key that code names exists.
//! The score pad owns `pad.` (its code is `web/`); another part of the project checks its own
//! prefix with the same helpers (`Catalogues::check_prefix`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The repository's root (this crate is `tests/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository")
        .to_path_buf()
}

/// Every catalogue, by language.
pub(crate) struct Catalogues {
    pub by_lang: BTreeMap<String, BTreeMap<String, String>>,
}

impl Catalogues {
    /// Reads `i18n/*.json`; fails on a file that is not one flat, sorted, string-valued object
    /// written the one way (so the lead's key-union merge and a translator's diff stay simple).
    pub(crate) fn load() -> Catalogues {
        let dir = root().join("i18n");
        let mut by_lang = BTreeMap::new();
        for entry in std::fs::read_dir(&dir).expect("i18n/ at the repository's root") {
            let path = entry.expect("a directory entry").path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let lang = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).expect("a catalogue");
            let words: BTreeMap<String, String> = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: one flat object of texts: {e}", path.display()));
            let canonical = serde_json::to_string_pretty(&words).unwrap() + "\n";
            assert!(
                text == canonical,
                "{}: keys sorted, two-space indent, one key a line, a newline at the end (as `python3 -m json.tool --indent 2 --sort-keys --no-ensure-ascii` writes it)",
                path.display()
            );
            by_lang.insert(lang, words);
        }
        Catalogues { by_lang }
    }

    /// The keys under `prefix` that some languages lack, as `lang: key`.
    pub(crate) fn missing(&self, prefix: &str) -> Vec<String> {
        let all: BTreeSet<&String> = self
            .by_lang
            .values()
            .flat_map(|w| w.keys())
            .filter(|k| k.starts_with(prefix))
            .collect();
        let mut missing = Vec::new();
        for (lang, words) in &self.by_lang {
            for key in &all {
                if !words.contains_key(*key) {
                    missing.push(format!("{lang}: {key}"));
                }
            }
        }
        missing
    }

    /// Keys whose `{placeholders}` differ from English in some language (a translation that
    /// drops `{player}` would show less than the English does).
    pub(crate) fn placeholder_mismatches(&self, prefix: &str) -> Vec<String> {
        let english = &self.by_lang["en"];
        let mut wrong = Vec::new();
        for (lang, words) in &self.by_lang {
            for (key, text) in words.iter().filter(|(k, _)| k.starts_with(prefix)) {
                if let Some(en) = english.get(key)
                    && placeholders(en) != placeholders(text)
                {
                    wrong.push(format!("{lang}: {key}"));
                }
            }
        }
        wrong
    }

    /// Checks one prefix against the code that uses it: `used` are the keys the code names.
    pub(crate) fn check_prefix(&self, prefix: &str, used: &BTreeSet<String>) {
        for lang in ["en", "fr", "fa"] {
            assert!(
                self.by_lang.contains_key(lang),
                "i18n/{lang}.json is missing"
            );
        }
        assert_eq!(
            self.missing(prefix),
            Vec::<String>::new(),
            "keys missing from a catalogue"
        );
        assert_eq!(
            self.placeholder_mismatches(prefix),
            Vec::<String>::new(),
            "a translation's {{placeholders}} differ from the English"
        );
        let english: BTreeSet<String> = self.by_lang["en"]
            .keys()
            .filter(|k| k.starts_with(prefix))
            .cloned()
            .collect();
        let unused: Vec<&String> = english.difference(used).collect();
        assert_eq!(unused, Vec::<&String>::new(), "keys no code uses");
        let unknown: Vec<&String> = used.difference(&english).collect();
        assert_eq!(
            unknown,
            Vec::<&String>::new(),
            "keys the code uses that i18n/en.json lacks"
        );
    }
}

/// The `{name}`s of a text.
fn placeholders(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = &after[..close];
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            names.insert(name.to_owned());
        }
        rest = &after[close + 1..];
    }
    names
}

/// Every quoted string in the files under `dir` (with these extensions) that starts with
/// `prefix` and reads as a key: `'pad.game.record'`, `"pad.nav.games"`, `` `pad.x` ``.
pub(crate) fn keys_in(
    dir: &Path,
    extensions: &[&str],
    prefix: &str,
    skip: &[&str],
) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of code") {
            let path = entry.expect("a directory entry").path();
            if skip.iter().any(|s| path.ends_with(s)) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !extensions.contains(&ext) {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            for quote in ['\'', '"', '`'] {
                let opening = format!("{quote}{prefix}");
                let mut rest = text.as_str();
                while let Some(at) = rest.find(&opening) {
                    let after = &rest[at + 1..];
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
                        .unwrap_or(after.len());
                    if after[end..].starts_with(quote) {
                        keys.insert(after[..end].to_owned());
                    }
                    rest = &after[end..];
                }
            }
        }
    }
    keys
}

#[test]
fn every_language_has_every_pad_key_and_the_pad_uses_each_one() {
    let catalogues = Catalogues::load();
    // web/types is generated from the OpenAPI document: not the pad's words.
    let used = keys_in(&root().join("web"), &["js", "html"], "pad.", &["types"]);
    assert!(
        used.len() > 300,
        "the pad names its words by key: {}",
        used.len()
    );
    catalogues.check_prefix("pad.", &used);
}

#[test]
fn every_catalogue_is_served_to_the_pad_and_named_by_it() {
    let catalogues = Catalogues::load();
    let server = std::fs::read_to_string(root().join("api/src/pad.rs")).unwrap();
    let worker = std::fs::read_to_string(root().join("web/sw.js")).unwrap();
    let languages = std::fs::read_to_string(root().join("web/i18n.js")).unwrap();
    for lang in catalogues.by_lang.keys() {
        assert!(
            server.contains(&format!(
                "(\"/pad/i18n/{lang}.json\", \"../i18n/{lang}.json\", JSON)"
            )),
            "serve i18n/{lang}.json in api/src/pad.rs"
        );
        assert!(
            worker.contains(&format!("'/pad/i18n/{lang}.json'")),
            "keep /pad/i18n/{lang}.json in web/sw.js"
        );
        assert!(
            languages.contains(&format!("{lang}: '")),
            "name {lang} in LANGUAGES, web/i18n.js"
        );
    }
}

#[test]
fn placeholders_are_read_from_braces() {
    assert_eq!(
        placeholders("{player}’s turn {n} of {turns}, {not a name}"),
        ["n", "player", "turns"].map(String::from).into()
    );
}
