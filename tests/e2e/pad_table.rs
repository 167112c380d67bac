//! The score pad at a real table, in a real headless Chromium at a phone's size: how far a
//! thumb scrolls and how many taps a round takes (printed with the test output and written in
//! docs/score-pad.md), where the page puts the next round, and what it shows on screen (leaders,
//! prizes, refusals in the page's own words, rows that fit 320 px). Screenshots of each screen
//! go next to the test output (see `browser.rs`).

use serde_json::json;

use crate::browser::{Browser, browser_sized};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app, totals};
use crate::pad::{assert_fits, expect, open_club, page_totals, setup, wait_for_seq};

/// What a thumb does to record a round: the scrolling it needs to see each control it taps
/// (pixels, summed), the taps, and the scrolling the page did by itself.
#[derive(Default, Debug)]
struct Effort {
    scrolled: i64,
    taps: usize,
    page_scrolled: i64,
}

impl Effort {
    /// Scrolls just enough to see `css` whole (under the sticky player tabs, if any), as a thumb
    /// would, then taps it.
    async fn tap(&mut self, b: &Browser, css: &str) {
        b.find(css).await;
        let moved = b
            .js(&format!(
                "const el = document.querySelector({css});
                 const r = el.getBoundingClientRect();
                 const tabs = el.closest('.mint-condition')?.querySelector('.player-tabs');
                 const upper = tabs && el.closest('fieldset.player-entry') ? tabs.getBoundingClientRect().bottom : 0;
                 const delta = r.bottom > innerHeight ? r.bottom - innerHeight + 8 : r.top < upper ? r.top - upper - 8 : 0;
                 const before = scrollY; scrollBy(0, delta); return Math.round(scrollY - before);",
                css = json!(css)
            ))
            .await
            .as_i64()
            .unwrap();
        self.scrolled += moved.abs();
        let before = b.js("return scrollY;").await.as_f64().unwrap();
        b.click(css).await;
        self.taps += 1;
        let after = b.js("return scrollY;").await.as_f64().unwrap();
        self.page_scrolled += (after - before).abs().round() as i64;
    }
}

/// Round 1 of a four-player game (8 cards each), hand-worked:
/// Ann: Be Careful! ×3 (the most: 0) + Animal Kingdom ×3 (6) + Fine Wine ×2 (4) = 10;
/// Bo: Be Careful! (fewer: 3) + Autographed ×2 (5) + Heavy Rotation ×3 (5) + Lost Pieces ×2 (6) = 19;
/// Cy: no Be Careful! (5) + Memories ×3 (0) + Legacy Edition (4) + Snack Fingers ×2 (3) + Heavy
/// Rotation ×2 (3) = 15; Di: Be Careful! ×2 (3) + Animal Kingdom ×3 (6) + Autographed ×2 (5) +
/// Memories (7) = 21.
const FOUR_PLAYER_ROUND: [(&str, &[(&str, usize)]); 4] = [
    (
        "Ann",
        &[("be-careful", 3), ("animal-kingdom", 3), ("fine-wine", 2)],
    ),
    (
        "Bo",
        &[
            ("be-careful", 1),
            ("autographed", 2),
            ("heavy-rotation", 3),
            ("lost-pieces", 2),
        ],
    ),
    (
        "Cy",
        &[
            ("heavy-rotation", 2),
            ("legacy-edition", 1),
            ("memories", 3),
            ("snack-fingers", 2),
        ],
    ),
    (
        "Di",
        &[
            ("be-careful", 2),
            ("animal-kingdom", 3),
            ("autographed", 2),
            ("memories", 1),
        ],
    ),
];

/// Taps a whole four-player round in with "+" (cards in the list's order, players in seat
/// order, as the page moves on by itself after each player's eighth card) and Record.
async fn tap_round(b: &Browser) -> Effort {
    let mut effort = Effort::default();
    for (player, cards) in FOUR_PLAYER_ROUND {
        // The page shows the player's cards without being asked.
        b.wait_text(".player-tab[aria-selected=\"true\"] .tab-name", |t| {
            t == player
        })
        .await;
        for (card, n) in cards {
            let plus = format!(
                "fieldset[data-player=\"{player}\"] input[data-card=\"{card}\"] + button.step"
            );
            for _ in 0..*n {
                effort.tap(b, &plus).await;
            }
        }
        // Its eighth card moved the page on: the player's tab says it is done.
        let count = b
            .text(&format!(".player-tab[data-player=\"{player}\"] .tab-count"))
            .await;
        assert_eq!(count, "8/8", "{player}");
    }
    effort.tap(b, "#entry button[type=\"submit\"]").await;
    effort
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_player_mint_condition_round_takes_33_taps_and_less_than_a_screen_of_scrolling() {
    let Some((app, b)) = setup().await else {
        return;
    };
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}]}),
        )
        .await;
    open_club(&app, &b, &club, &format!("#/game/{game}")).await;
    b.find(".player-tab").await;
    assert_fits(&b, 360).await;
    b.screenshot("30-four-players-round-1", None).await;

    let first = tap_round(&b).await;
    wait_for_seq(&b, 2).await;
    let after_one = expect(&[("Ann", 10), ("Bo", 19), ("Cy", 15), ("Di", 21)]);
    assert_eq!(page_totals(&b).await, after_one);
    let mut api = totals(&app.score(&club, &game).await);
    api.sort();
    assert_eq!(api, after_one, "the page shows what the API answers");

    // While the game goes on, the heading names the leader (the least damage).
    assert_eq!(
        b.text("table.totals caption").await,
        "Leading: Ann (lowest total wins)"
    );

    // The next round's form starts at the top of the screen, its first field focused.
    b.wait_text("#entry h3", |t| t.starts_with("Round 2")).await;
    let placed = b
        .js(
            "return [Math.round(document.querySelector('.entry-box').getBoundingClientRect().top),
                     document.activeElement.matches('.player-tab[data-player=\"Ann\"]')];",
        )
        .await;
    assert!(
        placed[0].as_i64().unwrap().abs() <= 1,
        "the form starts at the top: {placed}"
    );
    assert_eq!(placed[1], json!(true), "Ann's tab has the focus: {placed}");
    b.screenshot("31-four-players-round-2-at-the-top", None)
        .await;

    // Round 2: the same cards again (within the box's copies), so every total doubles.
    let second = tap_round(&b).await;
    wait_for_seq(&b, 3).await;
    assert_eq!(
        page_totals(&b).await,
        expect(&[("Ann", 20), ("Bo", 38), ("Cy", 30), ("Di", 42)])
    );
    for (round, effort) in [(1, &first), (2, &second)] {
        println!(
            "Mint Condition, 4 players, 360×640, round {round}: {} taps, {} px scrolled by the thumb, {} px by the page",
            effort.taps, effort.scrolled, effort.page_scrolled
        );
    }
    for effort in [&first, &second] {
        assert_eq!(effort.taps, 33, "{effort:?}");
        // The thumb's scrolling, and with the page's own moves still less than one screen.
        assert!(effort.scrolled <= 100, "{effort:?}");
        assert!(effort.scrolled + effort.page_scrolled <= 640, "{effort:?}");
    }
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mint_condition_round_with_lucky_fits_a_320_px_phone_and_protected_names_stay_whole() {
    let Some(b) = browser_sized(320, 640).await else {
        return;
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [
                {"name": "Ann", "color": "red"}, {"name": "Bo", "color": "blue"},
                {"name": "Cy", "color": "green"}, {"name": "Di", "color": "yellow"},
                {"name": "Evangeline", "color": "purple"}],
                "options": {"lucky": true}}),
        )
        .await;
    open_club(&app, &b, &club, &format!("#/game/{game}")).await;
    b.find(".player-tab").await;
    // A Sleeve Me Up! shows the protected counts.
    b.click("fieldset[data-player=\"Ann\"] input[data-card=\"sleeve-me-up\"] + button.step")
        .await;
    b.screenshot(
        "32-320px-lucky-protected",
        Some("fieldset[data-player=\"Ann\"] .stepper.protected:not([hidden])"),
    )
    .await;
    assert_fits(&b, 320).await;
    // "Autographed protected" is read out whole but shows "protected" under its card, on one
    // line; the card's own name is not cut into pieces either.
    let shown = b
        .js("const l = [...document.querySelectorAll('fieldset[data-player=\"Ann\"] .stepper.protected label')]
               .find(x => x.textContent === 'Autographed protected');
             const words = (node) => { const r = document.createRange(); r.selectNodeContents(node); return r.getClientRects().length; };
             const card = document.querySelector('fieldset[data-player=\"Ann\"] input[data-card=\"autographed\"]').labels[0];
             return [l.lastChild.textContent, words(l.lastChild), words(card.firstChild)];")
        .await;
    assert_eq!(shown, json!(["protected", 1, 1]));
    b.close().await;
}

/// The width of the refusal shown in `row` against the row's own: a refusal under a row of
/// fields takes the row's width (not one cell, a word per line) and stays inside it.
async fn assert_refusal_spans(b: &Browser, row: &str) {
    let sizes = b
        .js(&format!(
            "const row = document.querySelector({row}); const note = row.querySelector('.field-error');
             const r = row.getBoundingClientRect(), n = note.getBoundingClientRect();
             return [n.width, r.width, n.left >= r.left - 1 && n.right <= r.right + 1, n.height];",
            row = json!(row)
        ))
        .await;
    let (note, width) = (sizes[0].as_f64().unwrap(), sizes[1].as_f64().unwrap());
    assert!(
        note >= width * 0.9,
        "the refusal is as wide as {row}: {sizes}"
    );
    assert_eq!(
        sizes[2],
        json!(true),
        "the refusal stays inside {row}: {sizes}"
    );
    // One word a line (the old squeeze) was some twenty lines.
    assert!(
        sizes[3].as_f64().unwrap() < 160.0,
        "a few lines at most: {sizes}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_game_form_goes_to_the_next_name_on_enter_and_fits_320_px_with_lucky() {
    let Some(b) = browser_sized(320, 640).await else {
        return;
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    // A first visit: the club page prints nothing stray under its heading.
    b.goto(&app.url("/#/club")).await;
    b.find("form[data-pointer=\"/name\"]").await;
    let text = b.text("main").await;
    assert!(!text.contains("null"), "{text}");
    b.screenshot("33-first-visit", None).await;

    let club = app.new_club().await;
    open_club(&app, &b, &club, "#/new").await;
    b.select("select[name=\"game\"]", "mint-condition").await;
    b.click("button.add-player").await;
    b.click("button.add-player").await;
    b.click("button.add-player").await;
    // Lucky: every row gets a colour, and still fits.
    b.click(".options .field.toggle input[type=\"checkbox\"]")
        .await;
    assert_fits(&b, 320).await;
    // Enter ("Go") in a name moves on to the next name; it never starts the game.
    let first = b
        .find(".players li:nth-child(1) input[name=\"player\"]")
        .await;
    first.send_keys("Evangeline-Maude\u{E007}").await.unwrap();
    let focused = b
        .js("return [document.activeElement === document.querySelector('.players li:nth-child(2) input[name=\"player\"]'), location.hash];")
        .await;
    assert_eq!(focused, json!([true, "#/new"]));
    b.find(".players li:nth-child(2) input[name=\"player\"]")
        .await
        .send_keys("Bo\u{E007}")
        .await
        .unwrap();
    assert_eq!(b.js("return location.hash;").await, json!("#/new"));
    // The third name is empty: the refusal sits under its row, as wide as the row.
    b.fill(".players li:nth-child(4) input[name=\"player\"]", "Di")
        .await;
    b.click("form.new-game button[type=\"submit\"]").await;
    b.find(".players li:nth-child(3) .field-error").await;
    assert_refusal_spans(&b, ".players li:nth-child(3)").await;
    assert_fits(&b, 320).await;
    b.screenshot("34-320px-lucky-players", Some(".players"))
        .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vintage_prize_is_typed_without_a_prefill_and_the_game_page_lists_the_prizes() {
    let Some((app, b)) = setup().await else {
        return;
    };
    let club = app.new_club().await;
    open_club(&app, &b, &club, "#/new").await;
    b.select("select[name=\"game\"]", "vintage").await;
    b.click("button.add-prize").await;
    let prize = ".prizes li:nth-child(3)";
    // The new prize's hint follows its attribute, and its points start empty: "3" is 3.
    assert_eq!(
        b.js(&format!(
            "return document.querySelector('{prize} input[name=\"value\"]').placeholder;"
        ))
        .await,
        json!("e.g. blue")
    );
    b.select(&format!("{prize} select[name=\"attribute\"]"), "type")
        .await;
    assert_eq!(
        b.js(&format!(
            "return document.querySelector('{prize} input[name=\"value\"]').placeholder;"
        ))
        .await,
        json!("e.g. lamp")
    );
    b.find(&format!("{prize} input[name=\"points\"]"))
        .await
        .send_keys("3")
        .await
        .unwrap();
    assert_eq!(
        b.js(&format!(
            "return document.querySelector('{prize} input[name=\"points\"]').value;"
        ))
        .await,
        json!("3")
    );
    // A prefilled number is replaced by what is typed, not appended to.
    b.find(".prizes li:nth-child(1) input[name=\"points\"]")
        .await
        .send_keys("5")
        .await
        .unwrap();
    assert_eq!(
        b.js(
            "return document.querySelector('.prizes li:nth-child(1) input[name=\"points\"]').value;"
        )
        .await,
        json!("5")
    );
    for (i, name) in ["Ann", "Bo", "Cy"].iter().enumerate() {
        let css = format!(".players li:nth-child({}) input[name=\"player\"]", i + 1);
        b.fill(&css, name).await;
    }
    // The prize's object is missing: the refusal sits under the prize's row, as wide as it.
    b.click("form.new-game button[type=\"submit\"]").await;
    // In the page's words: the server's "prize \"type-\" needs the type it counts" names
    // neither the page's id-less prize nor its labels.
    assert_eq!(
        b.text(&format!("{prize} .field-error")).await,
        "this prize needs the object it counts: fill in “of”"
    );
    assert_refusal_spans(&b, prize).await;
    assert_fits(&b, 360).await;
    b.screenshot("35-vintage-prize-refused", Some(prize)).await;
    b.fill(&format!("{prize} input[name=\"value\"]"), "lamp")
        .await;
    b.click("form.new-game button[type=\"submit\"]").await;
    b.find("#entry").await;

    // The game page lists the prizes in play.
    let prizes = b
        .js("return [...document.querySelectorAll('.prizes-in-play li')].map(li => li.textContent);")
        .await;
    assert_eq!(
        prizes,
        json!([
            "Most blue objects (colour: blue) 5 points",
            "Most 60s objects (period: 60s) 3 points",
            "Most lamp objects (object: lamp) 3 points"
        ])
    );
    let game = b
        .js("return location.hash.split('/')[2];")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    let stored = app
        .get(&format!("/v1/games/{game}"), Some(&club.token))
        .await;
    assert_eq!(stored.body["options"]["prizes"][2]["points"], 3);
    assert_eq!(stored.body["options"]["prizes"][0]["points"], 5);
    b.screenshot("36-vintage-prizes-on-the-game-page", None)
        .await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correction_without_a_reason_is_saved_as_corrected_on_the_pad() {
    let Some((app, b)) = setup().await else {
        return;
    };
    let club = app.new_club().await;
    // Two players, no card counts: Ann a Fine Wine (2), Bo a Legacy Edition (4); nobody holds
    // a Be Careful!, so both take 5: Ann 7, Bo 9.
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}],
                   "options": {"strict_counts": false}}),
        )
        .await;
    let round = event(
        "round_collected",
        json!({"round": 1, "collections": {"Ann": ["fine-wine"], "Bo": ["legacy-edition"]}}),
    );
    assert_eq!(
        app.append(&club, &game, Some(1), vec![round]).await.status,
        201
    );
    open_club(&app, &b, &club, &format!("#/game/{game}")).await;
    b.click(".log li[data-seq=\"2\"] button.correct").await;
    b.find("#correction").await;
    let reason = b
        .js("const r = document.querySelector('#correction input[name=\"reason\"]'); return [r.placeholder, r.required];")
        .await;
    assert_eq!(reason, json!(["", false]), "nothing that looks filled in");
    // Ann's Fine Wine was a second one: 4 + 5 = 9.
    b.click("#correction .player-tab[data-player=\"Ann\"]")
        .await;
    b.fill(
        "#correction fieldset[data-player=\"Ann\"] input[data-card=\"fine-wine\"]",
        "2",
    )
    .await;
    b.click("#correction button[type=\"submit\"]").await;
    wait_for_seq(&b, 3).await;
    let head = b.text(".log li[data-seq=\"3\"] .event-head").await;
    assert!(
        head.ends_with("corrects #2 — corrected on the pad"),
        "{head}"
    );
    assert_eq!(page_totals(&b).await, expect(&[("Ann", 9), ("Bo", 9)]));
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_mind_up_turn_the_next_turns_first_card_has_the_focus_and_columns_read_at_320_px() {
    let Some(b) = browser_sized(320, 640).await else {
        return;
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let club = app.new_club().await;
    let players = json!([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}]);
    // A fresh game: the rows of the end of a round, whose columns read "12 30 47" whole.
    let rows = app
        .new_game(&club, json!({"game": "mind-up", "players": players}))
        .await;
    open_club(&app, &b, &club, &format!("#/game/{rows}")).await;
    let column = "#entry fieldset[data-player=\"Ann\"] input[data-column=\"1\"]";
    b.fill(column, "12 30 47").await;
    let fits = b
        .js(&format!(
            "const i = document.querySelector('{}'); return [i.scrollWidth, i.clientWidth];",
            column.replace('\'', "\\'")
        ))
        .await;
    assert!(
        fits[0].as_i64().unwrap() <= fits[1].as_i64().unwrap(),
        "“12 30 47” is read whole: {fits}"
    );
    // A column the server refuses (column 2 left empty, column 3 filled) shows its words under
    // the player's columns, not squeezed into one cell.
    b.fill(
        "#entry fieldset[data-player=\"Ann\"] input[data-column=\"3\"]",
        "1 2 3 4",
    )
    .await;
    b.fill("#entry input[name=\"columns\"]", "1 3 4 2 5").await;
    b.fill("#entry input[name=\"prizes\"]", "11 22 44 53").await;
    b.click("#entry button[type=\"submit\"]").await;
    b.find("#entry .rows-grid .field-error").await;
    assert_refusal_spans(&b, "#entry fieldset[data-player=\"Ann\"] .rows-grid").await;
    assert_fits(&b, 320).await;
    b.screenshot(
        "37-320px-mind-up-columns",
        Some("#entry fieldset[data-player=\"Ann\"]"),
    )
    .await;

    // Turn by turn: round 1's table and turn 1 over the API, turn 2 on the page.
    let turns = app
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
        app.append(&club, &turns, Some(1), vec![started, turn_1])
            .await
            .status,
        201
    );
    open_club(&app, &b, &club, &format!("#/game/{turns}")).await;
    b.wait_text(".entry-box h2", |t| t.contains("turn 2 of 6"))
        .await;
    for (player, card) in [("Ann", "40"), ("Bo", "30"), ("Cy", "20"), ("Di", "10")] {
        b.fill(
            &format!("#entry input[name=\"card\"][data-player=\"{player}\"]"),
            card,
        )
        .await;
    }
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 4).await;
    b.wait_text(".entry-box h2", |t| t.contains("turn 3 of 6"))
        .await;
    let placed = b
        .js("return [Math.round(document.querySelector('.entry-box').getBoundingClientRect().top),
                     document.activeElement.matches('#entry input[name=\"card\"][data-player=\"Ann\"]')];")
        .await;
    assert!(
        placed[0].as_i64().unwrap().abs() <= 1,
        "turn 3 starts at the top: {placed}"
    );
    assert_eq!(placed[1], json!(true), "Ann's card has the focus: {placed}");
    b.screenshot("38-320px-mind-up-next-turn", None).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mint_julep_starts_from_the_last_finish_and_the_last_player_and_names_a_missing_bet() {
    let Some((app, b)) = setup().await else {
        return;
    };
    let club = app.new_club().await;
    let players = json!([{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]);

    // Round 1 on the page: Cy has no bet yet; the page says so at Cy's select.
    let fresh = app
        .new_game(&club, json!({"game": "mint-julep", "players": players}))
        .await;
    open_club(&app, &b, &club, &format!("#/game/{fresh}")).await;
    b.select("select[data-player=\"Ann\"]", "you-got-me").await;
    b.select("select[data-player=\"Bo\"]", "maple-splendor")
        .await;
    b.click("#entry button[type=\"submit\"]").await;
    let at_cy = b
        .js("const s = document.querySelector('select[data-player=\"Cy\"]'); const n = s.nextElementSibling;
             return [s.getAttribute('aria-invalid'), n && n.classList.contains('field-error') ? n.textContent : null];")
        .await;
    assert_eq!(
        at_cy,
        json!([
            "true",
            "In round 1 every player places a bet: choose Cy’s horse."
        ])
    );
    assert_eq!(app.version(&club, &fresh).await, 1, "nothing stored");
    b.screenshot(
        "39-mint-julep-missing-bet",
        Some("select[data-player=\"Cy\"]"),
    )
    .await;

    // Round 1 recorded by its finish: round 2's finish starts from it.
    let finish = json!([
        "maple-splendor",
        "alaskan-justice",
        "you-got-me",
        "whiskey-princess",
        "newtons-apple"
    ]);
    let mut round_1: Vec<serde_json::Value> = [
        ("Ann", "you-got-me"),
        ("Bo", "maple-splendor"),
        ("Cy", "whiskey-princess"),
    ]
    .iter()
    .map(|(p, horse)| {
        event(
            "bet_placed",
            json!({"round": 1, "player": p, "horse": horse, "replaces": null}),
        )
    })
    .collect();
    round_1.push(event("race_recorded", json!({"round": 1, "order": finish})));
    round_1.push(event("round_ended", json!({"round": 1})));
    assert_eq!(
        app.append(&club, &fresh, Some(1), round_1).await.status,
        201
    );
    b.client.refresh().await.expect("reload");
    b.wait_text("#entry h3", |t| t == "Round 2").await;
    let shown = b
        .js("return [...document.querySelectorAll('#entry ol.race li')].map(li => li.dataset.horse);")
        .await;
    assert_eq!(shown, finish, "round 2 starts from round 1's finish");

    // Card by card: "played by" is the last card's player.
    let cards = app
        .new_game(&club, json!({"game": "mint-julep", "players": players}))
        .await;
    let mut events: Vec<serde_json::Value> = [
        ("Ann", "you-got-me"),
        ("Bo", "maple-splendor"),
        ("Cy", "whiskey-princess"),
    ]
    .iter()
    .map(|(p, horse)| {
        event(
            "bet_placed",
            json!({"round": 1, "player": p, "horse": horse, "replaces": null}),
        )
    })
    .collect();
    events.push(event(
        "card_played",
        json!({"round": 1, "player": "Bo", "moves": [{"horse": "you-got-me", "direction": "forward", "kind": "named"}], "mint_julep": null}),
    ));
    assert_eq!(app.append(&club, &cards, Some(1), events).await.status, 201);
    open_club(&app, &b, &club, &format!("#/game/{cards}")).await;
    b.find("#entry select[name=\"player\"]").await;
    assert_eq!(
        b.js("return document.querySelector('#entry select[name=\"player\"]').value;")
            .await,
        json!("Bo")
    );
    b.close().await;
}

/// A finished two-player Mint Condition game over the API, without card counts: each round
/// `a` gets `a_card` and `b` gets `b_card`; nobody holds a Be Careful!, so both take 5 more.
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
async fn the_history_shows_winners_keeps_its_filters_in_the_address_and_ranks_by_the_figure_shown()
{
    let Some((app, b)) = setup().await else {
        return;
    };
    let club = app.new_club().await;
    // Ann (Fine Wine: 5 + 2 a round) 21 beats Bo (Legacy Edition: 5 + 4) 27; then Bo (Fine
    // Wine) 21 beats Cy (Lost Pieces: 5 + 3) 24. Wins: Ann 1, Bo 1, Cy 0; averages: Ann 21,
    // Bo (27 + 21) / 2 = 24, Cy 24 → by average (least damage first) Ann 1, Bo 2, Cy 2.
    finished_game(&app, &club, ("Ann", "fine-wine"), ("Bo", "legacy-edition")).await;
    finished_game(&app, &club, ("Bo", "fine-wine"), ("Cy", "lost-pieces")).await;
    app.new_game(
        &club,
        json!({"game": "mind-up", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]}),
    )
    .await;

    // The filters come from the address, and each game shows its winner and totals.
    open_club(&app, &b, &club, "#/?game=mint-condition&status=finished").await;
    b.wait_text("ul.games", |t| t.matches("Winner").count() == 2)
        .await;
    let results = b
        .js("return [...document.querySelectorAll('ul.games li .result')].map(r => r.textContent).sort();")
        .await;
    assert_eq!(
        results,
        json!(["Winner: Ann · Ann 21 · Bo 27", "Winner: Bo · Bo 21 · Cy 24"])
    );
    assert_eq!(
        b.js("return [document.querySelector('select[name=\"game\"]').value, document.querySelector('select[name=\"status\"]').value];")
            .await,
        json!(["mint-condition", "finished"])
    );
    b.screenshot("40-games-with-winners", None).await;
    // A filter changed is a new address; the back button goes back to the one before.
    b.select("select[name=\"status\"]", "in_progress").await;
    b.wait_text("ul.games", |t| t.contains("No games yet"))
        .await;
    assert_eq!(
        b.js("return location.hash;").await,
        json!("#/?game=mint-condition&status=in_progress")
    );
    b.client.back().await.expect("back");
    b.wait_text("ul.games", |t| t.matches("Winner").count() == 2)
        .await;
    assert_eq!(
        b.js("return document.querySelector('select[name=\"status\"]').value;")
            .await,
        json!("finished")
    );

    // The leaderboard ranks by the figure it shows, chosen in the address.
    open_club(
        &app,
        &b,
        &club,
        "#/leaderboard?game=mint-condition&sort=average_score",
    )
    .await;
    b.wait_text("table.leaderboard caption", |t| {
        t == "Ranked by average score"
    })
    .await;
    let board = b
        .js("return [...document.querySelectorAll('table.leaderboard tbody tr')].map(r => [r.dataset.player, r.cells[0].textContent, r.querySelector('.ranked').textContent]);")
        .await;
    assert_eq!(
        board,
        json!([
            ["Ann", "1", "21.0"],
            ["Bo", "2", "24.0"],
            ["Cy", "2", "24.0"]
        ])
    );
    b.screenshot("41-leaderboard-by-average", None).await;
    b.select("select[name=\"sort\"]", "wins").await;
    b.wait_text("table.leaderboard caption", |t| t == "Ranked by wins")
        .await;
    let board = b
        .js("return [...document.querySelectorAll('table.leaderboard tbody tr')].map(r => [r.dataset.player, r.cells[0].textContent, r.querySelector('.ranked').textContent]);")
        .await;
    assert_eq!(
        board,
        // Tied on wins, the more games played first (the server's order).
        json!([["Bo", "1", "1"], ["Ann", "1", "1"], ["Cy", "3", "0"]])
    );
    assert_eq!(
        b.js("return location.hash;").await,
        json!("#/leaderboard?game=mint-condition&sort=wins")
    );
    // The chart writes each bar's value.
    let values = b
        .js("return [...document.querySelectorAll('svg.chart .bar-value')].map(t => t.textContent);")
        .await;
    assert_eq!(values, json!(["1", "1", "0"]));

    // Bo's page: each game's score written on its chart, a stem under every dot.
    b.click("table.leaderboard tr[data-player=\"Bo\"] a").await;
    b.find("figure svg.chart").await;
    let chart = b
        .js("const c = document.querySelector('figure svg.chart');
             return [[...c.querySelectorAll('text.value')].map(t => t.textContent).sort(), c.querySelectorAll('line.stem').length];")
        .await;
    assert_eq!(chart, json!([["21", "27"], 2]));
    assert_fits(&b, 360).await;
    b.screenshot("42-player-chart", Some("figure")).await;
    b.close().await;
}
