//! The pad's forms speak the table's words: a Vintage prize is chosen from the values the card
//! forms offer (and scores in French and Persian), a refusal sits at what it is about (the
//! round, a player's tab, a card kind), Snack Fingers and Sleeve Me Up! show what is left of
//! the pair, the house rules read as the new-game form words them, the log names the club's own
//! key in the page's language, and the Mind Up! turn heading shows once. Screenshots at 360×640
//! in English, French and Persian go to `target/tmp/pad-screenshots/forms-<lang>-<view>.png`.

use serde_json::{Value, json};

use crate::browser::{Browser, browser_speaking};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app, totals};
use crate::pad::{assert_fits, describe_card, expect, open_club, wait_for_seq};

/// The three languages of the pad: the phone's `Accept-Language` and the page's code.
const LANGUAGES: [(&str, &str); 3] = [("en-GB,en", "en"), ("fr-FR,fr", "fr"), ("fa-IR,fa", "fa")];

/// The server on SQLite and a phone speaking `languages`, or `None` without Chromium (skipped).
async fn setup_speaking(languages: &str) -> Option<(TestApp, Browser)> {
    let browser = browser_speaking(languages).await?;
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    Some((app, browser))
}

/// What a script returns, as a string.
async fn text_of(b: &Browser, script: &str) -> String {
    b.js(script)
        .await
        .as_str()
        .unwrap_or_else(|| panic!("no text from {script}"))
        .to_owned()
}

/// `n` in Persian digits (as the Persian page shows numbers).
fn persian(n: i64) -> String {
    n.to_string()
        .chars()
        .map(|c| {
            c.to_digit(10)
                .map_or(c, |d| char::from_u32(0x06F0 + d).unwrap())
        })
        .collect()
}

/// The page's totals by player, from the numbers behind the shown ones (any digits).
async fn shown_totals(b: &Browser) -> Vec<(String, i64)> {
    let rows = b
        .js("return [...document.querySelectorAll('table.totals tbody tr')].map(r => [r.dataset.player, Number(r.dataset.total)]);")
        .await;
    let mut out: Vec<(String, i64)> = rows
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r[0].as_str().unwrap().to_owned(), r[1].as_i64().unwrap()))
        .collect();
    out.sort();
    out
}

/// Types the players' names into the new-game form (adding rows as needed).
async fn name_players(b: &Browser, players: &[&str]) {
    for (i, name) in players.iter().enumerate() {
        let css = format!(".players li:nth-child({}) input[name=\"player\"]", i + 1);
        if b.js(&format!("return document.querySelector('{css}') === null;"))
            .await
            .as_bool()
            .unwrap()
        {
            b.click("button.add-player").await;
        }
        b.fill(&css, name).await;
    }
}

// ---------------------------------------------------------------------------------------------
// A Vintage prize scores in the page's language.

/// The page's French or Persian game: a period prize chosen through the list (shown "années 60",
/// stored "60s"), Ann the only one with a 60s card: Ann 3 + 5 = 8, Bo 3, Cy 3.
async fn a_period_prize_chosen_in_the_page_language_is_awarded(
    languages: &str,
    lang: &str,
    sixties: &str,
    points: &str,
) {
    let Some((app, b)) = setup_speaking(languages).await else {
        return;
    };
    let club = app.new_club().await;
    open_club(&app, &b, &club, "#/new").await;
    b.select("select[name=\"game\"]", "vintage").await;
    // The default period prize offers the card forms' periods, in the page's words.
    let offered = b
        .js("return [...document.querySelectorAll('.prizes li:nth-child(2) select[name=\"value\"] option')].map(o => o.value);")
        .await;
    assert_eq!(offered, json!(["50s", "60s", "70s"]));
    // Only the prize this test sets up: the defaults go.
    b.click(".prizes li:nth-child(1) button.small").await;
    b.click(".prizes li:nth-child(1) button.small").await;
    b.click("button.add-prize").await;
    let prize = ".prizes li:nth-child(1)";
    b.select(&format!("{prize} select[name=\"attribute\"]"), "period")
        .await;
    b.select_text(&format!("{prize} select[name=\"value\"]"), sixties)
        .await;
    assert_eq!(
        text_of(&b, &format!("return document.querySelector('{prize} select[name=\"value\"]').selectedOptions[0].textContent;")).await,
        sixties
    );
    b.fill(&format!("{prize} input[name=\"points\"]"), points)
        .await;
    name_players(&b, &["Ann", "Bo", "Cy"]).await;
    assert_fits(&b, 360).await;
    b.screenshot(&format!("forms-{lang}-period-prize"), Some(".prizes"))
        .await;
    b.click("form.new-game button[type=\"submit\"]").await;
    b.find("#entry").await;
    let game = crate::pad::shown_game(&b).await;

    // Stored as the cards store the period; listed in the page's words.
    let stored = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(stored.body["options"]["prizes"][0]["attribute"], "period");
    assert_eq!(stored.body["options"]["prizes"][0]["value"], "60s");
    assert_eq!(stored.body["options"]["prizes"][0]["points"], 5);
    b.wait_text(".prizes-in-play li", |t| t.contains(sixties))
        .await;

    // The collections at the end, each card's period chosen in the card form.
    for (player, card) in [
        ("Ann", ("lamp", "blue", "60s", 3)),
        ("Bo", ("radio", "red", "50s", 3)),
        ("Cy", ("chair", "green", "70s", 3)),
    ] {
        b.click(&format!(
            "fieldset[data-player=\"{player}\"] button.add-card"
        ))
        .await;
        describe_card(
            &b,
            &format!("fieldset[data-player=\"{player}\"] li.vintage-card:nth-child(1)"),
            card,
        )
        .await;
    }
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 2).await;

    let by_hand = expect(&[("Ann", 8), ("Bo", 3), ("Cy", 3)]);
    let mut served = totals(&app.score(&club, &game).await);
    served.sort();
    assert_eq!(served, by_hand);
    b.wait_text("table.totals tbody tr[data-player=\"Ann\"] .total", |t| {
        t == if lang == "fa" { persian(8) } else { "8".into() }
    })
    .await;
    assert_eq!(shown_totals(&b).await, by_hand);
    b.screenshot(&format!("forms-{lang}-prize-awarded"), Some(".board"))
        .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vintage_period_prize_chosen_on_a_french_phone_is_awarded() {
    a_period_prize_chosen_in_the_page_language_is_awarded("fr-FR,fr", "fr", "années 60", "5").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vintage_period_prize_chosen_on_a_persian_phone_is_awarded() {
    a_period_prize_chosen_in_the_page_language_is_awarded("fa-IR,fa", "fa", "دههٔ ۶۰", "۵").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_period_typed_as_a_prizes_colour_is_flagged_before_the_game_starts() {
    for ((languages, lang), (typed, flagged)) in LANGUAGES.into_iter().zip([
        ("60s", "“60s” is a period: choose “period” for this prize, then the period from the list"),
        ("années 60", "« années 60 » est une époque : choisissez « époque » pour cette prime, puis l’époque dans la liste"),
        ("دههٔ ۶۰", "«دههٔ ۶۰» یک دوره است: برای این جایزه «دوره» را انتخاب کنید، سپس دوره را از فهرست"),
    ]) {
        let Some((app, b)) = setup_speaking(languages).await else {
            return;
        };
        let club = app.new_club().await;
        open_club(&app, &b, &club, "#/new").await;
        b.select("select[name=\"game\"]", "vintage").await;
        let prize = ".prizes li:nth-child(1)";
        b.fill(&format!("{prize} input[name=\"value\"]"), typed)
            .await;
        name_players(&b, &["Ann", "Bo", "Cy"]).await;
        b.click("form.new-game button[type=\"submit\"]").await;
        let shown = b
            .wait_text(&format!("{prize} .field-error"), |t| !t.is_empty())
            .await;
        assert_eq!(shown.replace(['\u{2068}', '\u{2069}'], ""), flagged);
        // Nothing was sent: the club has no game.
        let games = app.get("/v1/games", Some(&club.token)).await;
        assert_eq!(games.body["games"], json!([]), "{lang}");
        assert_fits(&b, 360).await;
        b.screenshot(&format!("forms-{lang}-prize-flagged"), Some(prize))
            .await;
        b.close().await;
    }
}

// ---------------------------------------------------------------------------------------------
// Mint Condition: refusals where they belong, the pair's deck count.

/// A two-player Mint Condition game (7 cards each a round), on its page.
async fn mint_condition_page(app: &TestApp, b: &Browser, club: &TestClub) -> String {
    let game = app
        .new_game(
            club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    open_club(app, b, club, &format!("#/game/{game}")).await;
    b.find("#entry fieldset[data-player=\"Ann\"]").await;
    game
}

/// Sets a player's counts with the steppers' number fields (on the player's tab).
async fn set_counts(b: &Browser, player: &str, cards: &[(&str, i64)]) {
    b.click(&format!(".player-tab[data-player=\"{player}\"]"))
        .await;
    for (card, n) in cards {
        b.fill(
            &format!("fieldset[data-player=\"{player}\"] input[data-card=\"{card}\"]"),
            &n.to_string(),
        )
        .await;
    }
}

/// Where the page shows a refusal: the marked elements' descriptions and the error's place.
async fn refusal_place(b: &Browser) -> Value {
    b.js("const invalid = [...document.querySelectorAll('#entry [aria-invalid]')].map(e => \
            (e.closest('fieldset[data-player]')?.dataset.player ?? '') + ':' + (e.matches('fieldset') ? 'fieldset' : e.querySelector('input[data-card]')?.dataset.card ?? e.tagName.toLowerCase())); \
          const errors = [...document.querySelectorAll('#entry .field-error')].map(e => \
            (e.closest('fieldset[data-player]')?.dataset.player ?? '') + ':' + (e.closest('li.card-row')?.querySelector('input[data-card]')?.dataset.card ?? e.previousElementSibling?.tagName.toLowerCase())); \
          const shown = [...document.querySelectorAll('#entry fieldset[data-player]')].filter(f => !f.hidden).map(f => f.dataset.player); \
          return {invalid, errors, shown};")
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_about_a_card_kind_sits_at_that_kind_and_one_about_a_player_at_their_tab() {
    for (languages, lang) in LANGUAGES {
        let Some((app, b)) = setup_speaking(languages).await else {
            return;
        };
        let club = app.new_club().await;
        mint_condition_page(&app, &b, &club).await;
        // 7 Fine Wine in the round, the box holds 6; neither player alone is over (the server
        // points at the collections as a whole).
        set_counts(&b, "Ann", &[("fine-wine", 6), ("be-careful", 1)]).await;
        set_counts(&b, "Bo", &[("fine-wine", 1), ("be-careful", 6)]).await;
        b.click("#entry button[type=\"submit\"]").await;
        b.find("#entry .field-error").await;
        assert_eq!(
            refusal_place(&b).await,
            json!({"invalid": ["Ann:fine-wine"], "errors": ["Ann:fine-wine"], "shown": ["Ann"]}),
            "{lang}"
        );
        let refusal = text_of(
            &b,
            "return document.querySelector('#entry .field-error').textContent;",
        )
        .await;
        assert!(refusal.contains("Fine Wine"), "{lang}: {refusal}");
        assert_fits(&b, 360).await;
        b.screenshot(
            &format!("forms-{lang}-refusal-at-kind"),
            // The row above Fine Wine at the top (under the sticky tabs): the refusal below it.
            Some("fieldset[data-player=\"Ann\"] li.card-row:nth-child(2)"),
        )
        .await;

        // Bo a card short (strict counts): the refusal is about Bo, at Bo's tab.
        set_counts(&b, "Ann", &[("fine-wine", 5), ("be-careful", 2)]).await;
        set_counts(&b, "Bo", &[("fine-wine", 1), ("be-careful", 5)]).await;
        set_counts(&b, "Ann", &[]).await;
        b.click("#entry button[type=\"submit\"]").await;
        b.wait_text("#entry fieldset[data-player=\"Bo\"] > .field-error", |t| {
            !t.is_empty()
        })
        .await;
        assert_eq!(
            refusal_place(&b).await,
            json!({"invalid": ["Bo:fieldset"], "errors": ["Bo:legend"], "shown": ["Bo"]}),
            "{lang}"
        );
        b.screenshot(
            &format!("forms-{lang}-refusal-at-player"),
            Some("#entry fieldset[data-player=\"Bo\"]"),
        )
        .await;
        b.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snack_fingers_and_sleeve_me_up_show_what_is_left_of_the_pair() {
    for ((languages, lang), (snack, sleeve)) in LANGUAGES.into_iter().zip([
        (
            "10 left in the deck with Sleeve Me Up!",
            "10 left in the deck with Snack Fingers",
        ),
        (
            "encore 10 dans la pioche avec Sleeve Me Up!",
            "encore 10 dans la pioche avec Snack Fingers",
        ),
        (
            "۱۰ در دسته مانده، همراه Sleeve Me Up!",
            "۱۰ در دسته مانده، همراه Snack Fingers",
        ),
    ]) {
        let Some((app, b)) = setup_speaking(languages).await else {
            return;
        };
        let club = app.new_club().await;
        let game = mint_condition_page(&app, &b, &club).await;
        // Round 1 stored: 3 Snack Fingers and 1 Sleeve Me Up! of the 15.
        let round_1 = event(
            "round_collected",
            json!({"round": 1, "collections": {
                "Ann": ["snack-fingers", "snack-fingers", "sleeve-me-up", "be-careful", "be-careful", "be-careful", "be-careful"],
                "Bo": ["snack-fingers", "memories", "memories", "memories", "be-careful", "be-careful", "be-careful"],
            }}),
        );
        assert_eq!(
            app.append(&club, &game, Some(1), vec![round_1])
                .await
                .status,
            201
        );
        wait_for_seq(&b, 2).await;
        let note =
            |card: &str| format!("fieldset[data-player=\"Ann\"] small.deck[data-deck=\"{card}\"]");
        b.wait_text(&note("snack-fingers"), |t| {
            t.contains("11") || t.contains("۱۱")
        })
        .await;
        // This round: Ann 1 Snack Fingers.
        set_counts(&b, "Ann", &[("snack-fingers", 1)]).await;
        let clean = |s: String| s.replace(['\u{2068}', '\u{2069}'], "");
        assert_eq!(clean(b.text(&note("snack-fingers")).await), snack, "{lang}");
        assert_eq!(clean(b.text(&note("sleeve-me-up")).await), sleeve, "{lang}");
        assert_fits(&b, 360).await;
        b.screenshot(
            &format!("forms-{lang}-pair-deck"),
            // Up to Lost Pieces under the sticky tabs: the pair's rows below.
            Some("fieldset[data-player=\"Ann\"] li.card-row:nth-child(7)"),
        )
        .await;
        b.close().await;
    }
}

// ---------------------------------------------------------------------------------------------
// The scoreboard's house rules and the log, in the page's words; the Mind Up! heading once.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_house_rules_read_as_the_new_game_form_words_them_and_the_log_names_the_clubs_key() {
    for ((languages, lang), (strict, smoking, by)) in LANGUAGES.into_iter().zip([
        (
            "Check card counts: off",
            "Smoking Kills, damage per copy: 2 to its holder, 1 to everyone else",
            " · by the club’s key",
        ),
        (
            "Vérifier le nombre de cartes : désactivé",
            "Smoking Kills, dégâts par exemplaire : 2 à son détenteur, 1 à tous les autres",
            " · par la clé du club",
        ),
        (
            "بررسی تعداد کارت‌ها: خاموش",
            "Smoking Kills، آسیب هر نسخه: ۲ به دارنده‌اش، ۱ به همهٔ دیگران",
            " · توسط کلید باشگاه",
        ),
    ]) {
        let Some((app, b)) = setup_speaking(languages).await else {
            return;
        };
        let club = app.new_club().await;
        let game = app
            .new_game(
                &club,
                json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}],
                       "options": {"strict_counts": false, "expert_cards": true, "smoking_kills": {"holder": 2, "others": 1}}}),
            )
            .await;
        open_club(&app, &b, &club, &format!("#/game/{game}")).await;
        b.find(".house-rules").await;
        b.click(".house-rules summary").await;
        let rule = |option: &str| {
            format!(
                "return document.querySelector('.house-rules li[data-option=\"{option}\"]').textContent;"
            )
        };
        let clean = |s: String| s.replace(['\u{2068}', '\u{2069}'], "");
        let strict_shown = clean(text_of(&b, &rule("strict_counts")).await);
        assert!(strict_shown.starts_with(strict), "{lang}: {strict_shown}");
        let smoking_shown = clean(text_of(&b, &rule("smoking_kills")).await);
        assert!(
            smoking_shown.starts_with(smoking),
            "{lang}: {smoking_shown}"
        );
        // No raw key left: every rule is worded by the form.
        let codes = b
            .js("return document.querySelectorAll('.house-rules code').length;")
            .await;
        assert_eq!(codes, json!(0), "{lang}");
        assert_fits(&b, 360).await;
        b.screenshot(&format!("forms-{lang}-house-rules"), Some(".house-rules"))
            .await;

        let who = clean(
            b.wait_text(".log li[data-seq=\"1\"] .who", |t| !t.is_empty())
                .await,
        );
        assert_eq!(who.trim(), by.trim(), "{lang}");
        b.screenshot(&format!("forms-{lang}-log"), Some(".log"))
            .await;
        b.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mind_up_turn_heading_shows_once() {
    for ((languages, lang), heading) in LANGUAGES.into_iter().zip([
        "Round 1 of 3, turn 2 of 6",
        "Manche 1 sur 3, tour 2 sur 6",
        "دور ۱ از ۳، نوبت ۲ از ۶",
    ]) {
        let Some((app, b)) = setup_speaking(languages).await else {
            return;
        };
        let club = app.new_club().await;
        let players = json!([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}]);
        let game = app
            .new_game(&club, json!({"game": "mind-up", "players": players}))
            .await;
        let started = event(
            "round_started",
            json!({"round": 1, "columns": [1, 3, 4, 2, 5], "prizes": [11, 22, 44, 53]}),
        );
        let turn_1 = event(
            "cards_played",
            json!({"round": 1, "cards": {"Ann": 46, "Bo": 25, "Cy": 13, "Di": 1}}),
        );
        assert_eq!(
            app.append(&club, &game, Some(1), vec![started, turn_1])
                .await
                .status,
            201
        );
        open_club(&app, &b, &club, &format!("#/game/{game}")).await;
        b.wait_text(".entry-box h2", |t| t == heading).await;
        let headings = b
            .js("return [...document.querySelectorAll('.entry-box h2, .entry-box h3, .entry-box legend')].map(e => e.textContent);")
            .await;
        let headings: Vec<String> = serde_json::from_value(headings).expect("headings");
        assert_eq!(
            headings.iter().filter(|h| h.contains(heading)).count(),
            1,
            "{lang}: {headings:?}"
        );
        assert_fits(&b, 360).await;
        b.screenshot(&format!("forms-{lang}-mind-up-turn"), Some(".entry-box"))
            .await;
        b.close().await;
    }
}
