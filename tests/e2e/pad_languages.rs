//! The score pad in the players' languages: a phone set to French plays a Mind Up! round in
//! French, one set to Persian a Vintage turn right to left with Persian digits; the page's own
//! refusals come in that language next to their field; the switch on the page is remembered.
//! Screenshots of each language at 360×640 go to `target/tmp/pad-screenshots/<lang>-<view>.png`.

use serde_json::{Value, json};

use crate::browser::{Browser, browser_speaking};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app, totals};
use crate::pad::{assert_fits, open_club, record_by, start_on_page, wait_for_seq};

/// The server on SQLite and a phone speaking `languages`, or `None` without Chromium (skipped).
async fn setup_speaking(languages: &str) -> Option<(TestApp, Browser)> {
    let browser = browser_speaking(languages).await?;
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    Some((app, browser))
}

async fn text_of(b: &Browser, script: &str) -> String {
    b.js(script)
        .await
        .as_str()
        .unwrap_or_else(|| panic!("no text from {script}"))
        .to_owned()
}

/// `<html lang dir>` as the page set them.
async fn lang_and_dir(b: &Browser) -> (String, String) {
    let v = b
        .js("return [document.documentElement.lang, document.documentElement.dir];")
        .await;
    (
        v[0].as_str().unwrap().to_owned(),
        v[1].as_str().unwrap().to_owned(),
    )
}

/// The left edges (CSS pixels) of the elements matching `css`, in the page's order.
async fn lefts(b: &Browser, css: &str) -> Vec<f64> {
    b.js(&format!(
        "return [...document.querySelectorAll({})].map(e => e.getBoundingClientRect().left);",
        json!(css)
    ))
    .await
    .as_array()
    .expect("positions")
    .iter()
    .map(|x| x.as_f64().unwrap())
    .collect()
}

/// Counts the `Accept-Language` the page sends from now on (api.js calls `fetch` each time).
async fn watch_accept_language(b: &Browser) {
    b.js("window.sentLanguages = []; const plain = window.fetch; \
          window.fetch = (url, init) => { window.sentLanguages.push(init?.headers?.['accept-language'] ?? null); return plain(url, init); }; \
          return true;")
        .await;
}

async fn sent_languages(b: &Browser) -> Vec<Value> {
    b.js("return window.sentLanguages;")
        .await
        .as_array()
        .expect("a list")
        .clone()
}

/// The scoreboard's totals by player, from the numbers behind the shown ones, and as shown.
async fn shown_totals(b: &Browser) -> Vec<(String, i64, String)> {
    let rows = b
        .js("return [...document.querySelectorAll('table.totals tbody tr')].map(r => [r.dataset.player, Number(r.dataset.total), r.querySelector('.total').textContent]);")
        .await;
    let mut out: Vec<(String, i64, String)> = rows
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_owned(),
                r[1].as_i64().unwrap(),
                r[2].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn persian_digits(n: i64) -> String {
    n.to_string()
        .chars()
        .map(|c| match c.to_digit(10) {
            Some(d) => char::from_u32(0x06F0 + d).unwrap(),
            None => c,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_set_to_french_plays_a_mind_up_round_in_french_and_keeps_the_language_it_switches_to()
 {
    let Some((app, b)) = setup_speaking("fr-FR,fr").await else {
        return;
    };
    let club = app.new_club().await;
    open_club(&app, &b, &club, "#/").await;
    b.wait_text("header.top nav a[href=\"#/new\"]", |t| {
        t == "Nouvelle partie"
    })
    .await;
    assert_eq!(lang_and_dir(&b).await, ("fr".into(), "ltr".into()));
    assert_eq!(
        b.js("return document.getElementById('language').value;")
            .await,
        json!("fr")
    );
    b.wait_text("main h1", |t| t == "Parties").await;

    // The new-game form in French: its heading, the game's goal and the players' labels.
    b.goto(&app.url("/#/new")).await;
    b.select("select[name=\"game\"]", "mind-up").await;
    b.wait_text("form.new-game h1", |t| t == "Nouvelle partie")
        .await;
    let goal = b.text("form.new-game p.help").await;
    assert_eq!(
        goal,
        "Le plus haut total gagne ; une égalité va à la meilleure manche 3. 3 manches. 3 à 6 joueurs."
    );
    b.wait_text(".players li:nth-child(1) label", |t| t == "Joueur 1")
        .await;
    b.screenshot("fr-new-game", None).await;
    start_on_page(&b, "mind-up", &["Ann", "Bo", "Cy", "Di"]).await;

    // The round's step, the ways to record it and the table's fields, in French.
    b.wait_text(".entry-box h2", |t| t == "Manche 1 sur 3")
        .await;
    b.wait_text("#entry .ways legend", |t| t == "Noter").await;
    assert_eq!(
        text_of(
            &b,
            "return document.querySelector('#entry .ways').textContent;"
        )
        .await,
        "Noter les rangées en fin de manche tour par tour"
    );
    b.wait_text("#entry .round-setup legend", |t| {
        t == "La table de cette manche"
    })
    .await;
    b.wait_text("#entry button[type=\"submit\"]", |t| t == "Noter")
        .await;

    // A word in the score cards that is no number: refused on the page, in French, under the
    // score cards' field (nothing is sent).
    watch_accept_language(&b).await;
    b.fill("#entry input[name=\"columns\"]", "1 3 x 2 5").await;
    b.fill("#entry input[name=\"prizes\"]", "11 22 44 53").await;
    let rows: [(&str, [&str; 5]); 4] = [
        ("Ann", ["53 60 38", "13", "27", "14", "39"]),
        ("Bo", ["44 25 12", "31", "37 33", "2", ""]),
        ("Cy", ["22 35 9", "46", "56", "32", "28"]),
        ("Di", ["11 50 54", "1", "3", "4", "6"]),
    ];
    for (player, cols) in rows {
        for (i, col) in cols.iter().enumerate() {
            if !col.is_empty() {
                let css = format!(
                    "fieldset[data-player=\"{player}\"] input[data-column=\"{}\"]",
                    i + 1
                );
                b.fill(&css, col).await;
            }
        }
    }
    b.click("#entry button[type=\"submit\"]").await;
    b.wait_text("#entry .field-error", |t| t == "« x » n’est pas un nombre")
        .await;
    let at = b
        .js("const e = document.querySelector('#entry .field-error'); return [e.parentElement.dataset.pointer, e.parentElement.querySelector('input').name];")
        .await;
    assert_eq!(at, json!(["/events/0/data/columns", "columns"]));
    assert_eq!(sent_languages(&b).await, Vec::<Value>::new());
    b.screenshot("fr-refusal", Some("#entry .round-setup"))
        .await;

    b.fill("#entry input[name=\"columns\"]", "1 3 4 2 5").await;
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 3).await;
    // Every request of the page asks for French.
    let sent = sent_languages(&b).await;
    assert!(!sent.is_empty());
    assert!(sent.iter().all(|l| l == "fr"), "{sent:?}");

    // The scoreboard and the log in French; the totals are the server's.
    b.wait_text(".entry-box h2", |t| t == "Manche 2 sur 3")
        .await;
    b.wait_text(".board h2", |t| t == "Tableau des scores")
        .await;
    b.wait_text(".scoreboard h3", |t| t == "Chaque point expliqué")
        .await;
    b.wait_text("table.totals caption", |caption| {
        caption.starts_with("En tête : ") && caption.ends_with("(le plus haut total gagne)")
    })
    .await;
    let heads = text_of(&b, "return [...document.querySelectorAll('table.totals thead th')].map(t => t.textContent).join('|');").await;
    assert_eq!(heads, "Rang|Joueur|Total");
    let game = crate::pad::shown_game(&b).await;
    let api = app.score(&club, &game).await;
    let shown: Vec<(String, i64)> = shown_totals(&b)
        .await
        .into_iter()
        .map(|(p, n, text)| {
            assert_eq!(text, n.to_string());
            (p, n)
        })
        .collect();
    let mut expected = totals(&api);
    expected.sort();
    assert_eq!(shown, expected);
    let round_line = text_of(&b, "const d = document.querySelector('details.breakdown'); d.open = true; return d.querySelector('h4').textContent;").await;
    assert!(round_line.starts_with("Manche 1 : "), "{round_line}");
    b.wait_text(".log li[data-seq=\"3\"] .event-head strong", |t| {
        t == "#3 rangées notées"
    })
    .await;
    b.wait_text(".log li[data-seq=\"3\"] button.retract", |t| t == "Retirer")
        .await;
    assert_fits(&b, 360).await;
    b.screenshot("fr-scoreboard", Some(".board")).await;

    // The switch: English at once, and kept on this phone over the browser's French.
    b.select("#language", "en").await;
    b.wait_text(".board h2", |t| t == "Scoreboard").await;
    assert_eq!(lang_and_dir(&b).await, ("en".into(), "ltr".into()));
    b.wait_text(".entry-box h2", |t| t == "Round 2 of 3").await;
    b.client.refresh().await.expect("reload");
    b.wait_text(".board h2", |t| t == "Scoreboard").await;
    assert_eq!(
        b.js("return localStorage.getItem('tabletally.lang');")
            .await,
        json!("en")
    );
    b.screenshot("en-scoreboard", Some(".board")).await;
    b.screenshot("en-round", Some(".entry-box")).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_set_to_persian_records_a_vintage_turn_right_to_left_with_persian_digits() {
    let Some((app, b)) = setup_speaking("fa-IR,fa").await else {
        return;
    };
    let club = app.new_club().await;
    open_club(&app, &b, &club, "#/").await;
    b.wait_text("header.top nav a[href=\"#/new\"]", |t| t == "بازی تازه")
        .await;
    assert_eq!(lang_and_dir(&b).await, ("fa".into(), "rtl".into()));
    // Right to left: the brand (first in the header) on the right of the language switch on its
    // line, the menu's first item right of its last.
    let brand = lefts(&b, "header.top .brand").await[0];
    let switch = lefts(&b, "header.top #language").await[0];
    let menu = lefts(&b, "header.top nav li").await;
    assert!(brand > switch, "brand {brand} switch {switch}");
    assert!(menu[0] > menu[3], "menu {menu:?}");

    // The new game: Vintage under its Persian name, the default prize in Persian words.
    b.goto(&app.url("/#/new")).await;
    b.select("select[name=\"game\"]", "vintage").await;
    assert_eq!(
        text_of(
            &b,
            "return document.querySelector('select[name=\"game\"]').selectedOptions[0].textContent;"
        )
        .await,
        "وینتیج"
    );
    assert_eq!(
        b.js(
            "return document.querySelector('.prizes li:nth-child(1) input[name=\"value\"]').value;"
        )
        .await,
        json!("آبی")
    );
    // A player's row: the name field right of its ✕.
    let name = lefts(&b, ".players li:nth-child(1) input[name=\"player\"]").await[0];
    let remove = lefts(&b, ".players li:nth-child(1) button.small").await[0];
    assert!(name > remove, "name {name} ✕ {remove}");
    b.screenshot("fa-new-game", None).await;
    start_on_page(&b, "vintage", &["سارا", "بابک", "کاوه"]).await;
    b.wait_text("header.game-head .status", |t| t == "در جریان")
        .await;
    record_by(&b, "turns").await;
    b.wait_text("#entry h3", |t| t == "پخش کارت‌ها").await;

    // The deal, values typed in Persian digits (1 card to سارا, 2 to بابک, 3 to کاوه).
    let deal: [(&str, &[TypedCard]); 3] = [
        ("سارا", &[("چراغ", "آبی", "60s", "۳")]),
        (
            "بابک",
            &[("رادیو", "قرمز", "50s", "۲"), ("صندلی", "آبی", "70s", "1")],
        ),
        (
            "کاوه",
            &[
                ("گلدان", "سبز", "60s", "۴"),
                ("ساعت", "قرمز", "50s", "۵"),
                ("تلفن", "آبی", "60s", "2"),
            ],
        ),
    ];
    for (player, cards) in deal {
        for (i, card) in cards.iter().enumerate() {
            let css = format!(
                "fieldset[data-player=\"{player}\"] li.vintage-card:nth-child({})",
                i + 1
            );
            fill_card(&b, &css, *card).await;
        }
    }
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 2).await;

    // Turn 1 of سارا, in Persian digits.
    b.wait_text("#entry h3", |t| t == "نوبت ۱: سارا").await;
    b.wait_text("#entry fieldset.turn > legend", |t| t == "نوبت سارا")
        .await;
    b.select("#entry select[name=\"banked\"]", "c1").await;
    // The card's id inside the Persian sentence is isolated (U+2068 … U+2069): "c4" reads
    // left to right wherever it stands.
    assert_eq!(
        text_of(&b, "return [...document.querySelectorAll('#entry select[name=\"take\"] option')].map(o => o.textContent).find(o => o.includes('c4'));").await,
        "دزدیدن از کاوه: \u{2068}c4\u{2069} · گلدان سبز، دههٔ ۶۰، ۴"
    );
    b.select_text("#entry select[name=\"take\"]", "c4").await;
    let first = "#entry .drawn li.vintage-card:nth-child(1)";
    let second = "#entry .drawn li.vintage-card:nth-child(2)";
    fill_card(&b, first, ("چراغ", "قرمز", "70s", "x۲")).await;
    fill_card(&b, second, ("رادیو", "آبی", "50s", "۳")).await;
    b.select("#entry select[name=\"kept\"]", "1").await;
    // A value that is no number: refused in Persian, right under that card's value.
    b.click("#entry button[type=\"submit\"]").await;
    b.wait_text(&format!("{first} .field-error"), |t| t == "«x۲» عدد نیست")
        .await;
    assert_eq!(
        b.js(&format!(
            "return document.querySelector('{first} .field-error').previousElementSibling.name;"
        ))
        .await,
        json!("value")
    );
    b.screenshot("fa-refusal", Some(first)).await;
    fill_card(&b, first, ("چراغ", "قرمز", "70s", "۱")).await;
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 3).await;
    b.wait_text("#entry h3", |t| t == "نوبت ۲: بابک").await;

    // What the server stored: Latin digits, as typed in Persian ones.
    let events = app
        .get(
            &format!("/v1/games/{}/events", crate::pad::shown_game(&b).await),
            Some(&club.token),
        )
        .await;
    let turn = &events.body["events"][2]["data"];
    assert_eq!(turn["drawn"][0]["value"], 1);
    assert_eq!(turn["drawn"][1]["value"], 3);
    assert_eq!(turn["kept"], "c8");

    // The scoreboard: Persian words, Persian digits, columns from right to left.
    b.wait_text(".board h2", |t| t == "جدول امتیاز").await;
    let game = crate::pad::shown_game(&b).await;
    let mut expected = totals(&app.score(&club, &game).await);
    expected.sort();
    let shown = shown_totals(&b).await;
    assert_eq!(
        shown
            .iter()
            .map(|(p, n, _)| (p.clone(), *n))
            .collect::<Vec<_>>(),
        expected
    );
    for (_, n, text) in &shown {
        assert_eq!(*text, persian_digits(*n));
    }
    let columns = lefts(&b, "table.totals thead th").await;
    assert!(
        columns[0] > columns[1] && columns[1] > columns[2],
        "rank, player, total from right to left: {columns:?}"
    );
    // "Every point explained": the server's Persian lines, their numbers in Persian digits.
    let lines = b
        .js("return [...document.querySelectorAll('.breakdown .line')].map(l => l.textContent);")
        .await;
    let lines: Vec<String> = serde_json::from_value(lines).expect("the breakdown's lines");
    assert!(
        lines
            .iter()
            .any(|l| l.chars().any(|c| ('۰'..='۹').contains(&c))),
        "{lines:?}"
    );
    assert!(
        lines.iter().all(|l| !latin_number(l)),
        "a number in Latin digits: {lines:?}"
    );
    // The log mirrors too: an event's first button (Correct) right of the next (Take back).
    let correct = lefts(&b, ".log li[data-seq=\"3\"] button.correct").await[0];
    let retract = lefts(&b, ".log li[data-seq=\"3\"] button.retract").await[0];
    assert!(correct > retract, "correct {correct} take back {retract}");
    b.wait_text(".log li[data-seq=\"3\"] .event-head strong", |t| {
        t == "#۳ نوبت بازی شد"
    })
    .await;
    assert_fits(&b, 360).await;
    b.screenshot("fa-turn", Some(".entry-box")).await;
    b.screenshot("fa-scoreboard", Some(".board")).await;
    b.close().await;
}

/// Whether `text` holds a number in Latin digits that is not part of a Latin word or a path
/// (the digits of "c4" or "60s" are a name's, not a number's).
fn latin_number(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let part_of_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.');
    (0..chars.len()).any(|i| {
        chars[i].is_ascii_digit() && (i == 0 || !part_of_word(chars[i - 1])) && {
            let end = (i..chars.len())
                .find(|&j| !chars[j].is_ascii_digit())
                .unwrap_or(chars.len());
            end == chars.len()
                || !(chars[end].is_ascii_alphanumeric() || chars[end] == '_' || chars[end] == '/')
        }
    })
}

/// A Vintage card as typed: object, colour, period (the option's value) and value (as text).
type TypedCard<'a> = (&'a str, &'a str, &'a str, &'a str);

/// A Vintage card typed as a Persian table types it.
async fn fill_card(b: &Browser, card: &str, (object, colour, period, value): TypedCard<'_>) {
    b.fill(&format!("{card} input[name=\"type\"]"), object)
        .await;
    b.fill(&format!("{card} input[name=\"colour\"]"), colour)
        .await;
    b.select(&format!("{card} select[name=\"period\"]"), period)
        .await;
    b.fill(&format!("{card} input[name=\"value\"]"), value)
        .await;
}

crate::on_both_backends!(the_catalogues_are_served_like_the_pages_other_files);

async fn the_catalogues_are_served_like_the_pages_other_files(app: TestApp) {
    for (lang, record) in [("en", "Record"), ("fr", "Noter"), ("fa", "ثبت")] {
        let reply = app
            .client
            .get(app.url(&format!("/pad/i18n/{lang}.json")))
            .send()
            .await
            .expect("GET a catalogue");
        assert_eq!(reply.status(), 200);
        let headers = reply.headers().clone();
        assert_eq!(headers["content-type"], "application/json; charset=utf-8");
        assert_eq!(headers["cache-control"], "no-cache");
        assert!(headers.contains_key("etag"));
        assert!(
            headers["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("default-src 'self'")
        );
        let words: Value = reply.json().await.expect("a JSON catalogue");
        assert_eq!(words["pad.game.record"], record);
    }
    // A language the server does not have is not a page.
    let unknown = app.get("/pad/i18n/xx.json", None).await;
    unknown.problem(404);
}

/// A finished two-player Mint Condition game over the API: each round `a` gets `a_card` and `b`
/// gets `b_card` (no card counts; nobody holds a Be Careful!, so both take 5 more).
async fn finished_game(app: &TestApp, club: &TestClub, a: (&str, &str), b: (&str, &str)) -> String {
    let game = app
        .new_game(
            club,
            json!({"game": "mint-condition", "players": [{"name": a.0}, {"name": b.0}],
                   "options": {"strict_counts": false}}),
        )
        .await;
    let rounds = (1..=3)
        .map(|round| {
            event(
                "round_collected",
                json!({"round": round, "collections": {a.0: [a.1], b.0: [b.1]}}),
            )
        })
        .collect();
    assert_eq!(app.append(club, &game, Some(1), rounds).await.status, 201);
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_persian_the_leaderboard_a_players_chart_and_the_steppers_run_right_to_left() {
    let Some((app, b)) = setup_speaking("fa").await else {
        return;
    };
    let club = app.new_club().await;
    // سارا (Fine Wine: 5 + 2 a round) 21 beats بابک (Legacy Edition: 5 + 4) 27; then بابک
    // (Fine Wine) 21 beats کاوه (Lost Pieces: 5 + 3) 24.
    finished_game(
        &app,
        &club,
        ("سارا", "fine-wine"),
        ("بابک", "legacy-edition"),
    )
    .await;
    finished_game(&app, &club, ("بابک", "fine-wine"), ("کاوه", "lost-pieces")).await;

    open_club(&app, &b, &club, "#/leaderboard").await;
    b.wait_text("table.leaderboard caption", |t| {
        t == "رتبه‌بندی بر پایهٔ درصد برد"
    })
    .await;
    let rates = text_of(&b, "return [...document.querySelectorAll('table.leaderboard tbody tr')].map(r => r.dataset.player + ' ' + r.querySelector('td.ranked').textContent).join(' | ');").await;
    assert_eq!(rates, "سارا ۱۰۰٪ | بابک ۵۰٪ | کاوه ۰٪");
    // The bars: each name on the right, its bar growing leftwards from it, the value after it.
    let bars = b
        .js("return [...document.querySelectorAll('svg.chart')[0].querySelectorAll('text.bar-label')].map((label, i) => { \
               const bar = label.parentNode.querySelectorAll('rect.bar')[i].getBoundingClientRect(); \
               const value = label.parentNode.querySelectorAll('text.bar-value')[i].getBoundingClientRect(); \
               const name = label.getBoundingClientRect(); \
               return [name.left >= bar.right - 1, value.right <= bar.left + 1, label.textContent]; });")
        .await;
    assert_eq!(
        bars,
        json!([
            [true, true, "سارا"],
            [true, true, "بابک"],
            [true, true, "کاوه"]
        ])
    );
    assert_fits(&b, 360).await;
    b.screenshot("fa-leaderboard", Some("main")).await;

    // بابک's page: two games, the older one on the right (time runs right to left).
    let player = text_of(&b, "return [...document.querySelectorAll('table.leaderboard a')].find(a => a.textContent === 'بابک').getAttribute('href');").await;
    b.goto(&app.url(&format!("/{player}"))).await;
    b.wait_text("main h1", |t| t == "بابک").await;
    let dots = b
        .js("return [...document.querySelectorAll('figure svg.chart circle.dot')].map(c => [Number(c.getAttribute('cx')), c.nextElementSibling?.textContent ?? c.parentNode.querySelector('text.value').textContent]);")
        .await;
    let dots = dots.as_array().expect("the chart's dots");
    assert_eq!(dots.len(), 2, "{dots:?}");
    assert!(
        dots[0][0].as_f64().unwrap() > dots[1][0].as_f64().unwrap(),
        "the older game right of the newer: {dots:?}"
    );
    let values = text_of(&b, "return [...document.querySelectorAll('figure svg.chart text.value')].map(t => t.textContent).join(' ');").await;
    assert_eq!(values, "۲۷ ۲۱");
    assert_eq!(
        text_of(
            &b,
            "return document.querySelector('dl.figures dd:nth-of-type(3)').textContent;"
        )
        .await,
        "۵۰٪"
    );
    b.screenshot("fa-player", Some("main")).await;

    // A Mint Condition round's steppers mirror (+ on the left) and count in Persian digits.
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "سارا"}, {"name": "بابک"}]}),
        )
        .await;
    b.goto(&app.url(&format!("/#/game/{game}"))).await;
    let plus = "fieldset[data-player=\"سارا\"] input[data-card=\"fine-wine\"] + button.step";
    b.click(plus).await;
    b.click(plus).await;
    b.wait_text(".player-tab[data-player=\"سارا\"] .tab-count", |t| {
        t == "۲/۷"
    })
    .await;
    let stepper = b
        .js("const s = document.querySelector('fieldset[data-player=\"سارا\"] input[data-card=\"fine-wine\"]').closest('.stepper'); \
             const [less, more] = s.querySelectorAll('button.step'); \
             return [s.querySelector('input').value, more.getBoundingClientRect().left < less.getBoundingClientRect().left, \
                     s.querySelector('.stepper-label').getBoundingClientRect().left > less.getBoundingClientRect().left];")
        .await;
    assert_eq!(stepper, json!(["۲", true, true]));
    b.screenshot("fa-steppers", Some("#entry")).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pad_takes_the_first_of_the_phones_languages_it_speaks_else_english() {
    // German first, French second: French.
    let Some((app, b)) = setup_speaking("de-DE,de,fr-FR").await else {
        return;
    };
    let club = app.new_club().await;
    open_club(&app, &b, &club, "#/").await;
    b.wait_text("header.top nav a[href=\"#/\"]", |t| t == "Parties")
        .await;
    assert_eq!(lang_and_dir(&b).await, ("fr".into(), "ltr".into()));
    b.close().await;

    // Only languages it does not speak: English.
    let Some(b) = browser_speaking("de-DE,de").await else {
        return;
    };
    open_club(&app, &b, &club, "#/").await;
    b.wait_text("main h1", |t| t == "Games").await;
    assert_eq!(lang_and_dir(&b).await, ("en".into(), "ltr".into()));
    assert_eq!(
        b.js("return document.getElementById('language').value;")
            .await,
        json!("en")
    );
    b.close().await;
}
