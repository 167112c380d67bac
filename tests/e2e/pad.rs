//! The score pad (the web page at `/`): how it is served, and whole games played through it in
//! a real headless Chromium at a phone's size (see `browser.rs`). The browser tests run on
//! SQLite: the page is the same on both backends, and the API's own tests cover PostgreSQL.

use serde_json::json;

use crate::browser::{Browser, browser};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app, totals};

crate::on_both_backends!(the_page_is_served_with_caching_and_a_strict_content_security_policy);

async fn the_page_is_served_with_caching_and_a_strict_content_security_policy(app: TestApp) {
    let page = app.client.get(app.url("/")).send().await.expect("GET /");
    assert_eq!(page.status(), 200);
    let headers = page.headers().clone();
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(headers["cache-control"], "no-cache");
    let etag = headers["etag"].to_str().unwrap().to_owned();
    let body = page.text().await.unwrap();
    assert!(body.contains("pad/app.js"), "{body}");

    let again = app
        .client
        .get(app.url("/"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);

    let script = app.client.get(app.url("/pad/api.js")).send().await.unwrap();
    assert_eq!(script.status(), 200);
    assert!(
        script.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    // The page talks to the API only through api.js, the one module with `fetch`.
    assert!(script.text().await.unwrap().contains("fetch("));

    let qr = app
        .client
        .get(app.url("/pad/qr.svg?text=http%3A%2F%2F127.0.0.1%2F%23%2Fshare%2Fx%2Fy"))
        .send()
        .await
        .unwrap();
    assert_eq!(qr.status(), 200);
    assert_eq!(qr.headers()["content-type"], "image/svg+xml");
    assert!(qr.text().await.unwrap().contains("<svg"));

    // The API keeps its own answers: an unknown path is still problem+json.
    let unknown = app.get("/nothing-here", None).await;
    unknown.problem(404);
}

/// The server on SQLite and a phone-sized browser, or `None` when Chromium is missing (skipped).
async fn setup() -> Option<(TestApp, Browser)> {
    let browser = browser().await?;
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    Some((app, browser))
}

/// Opens the page with a club's token already in the browser's storage.
async fn open_club(app: &TestApp, b: &Browser, club: &TestClub, hash: &str) {
    b.goto(&app.url("/")).await;
    b.js(&format!(
        "localStorage.setItem('tabletally.token', {}); return true;",
        json!(club.token)
    ))
    .await;
    // Same document, new hash: reload so the page reads the token at start.
    b.goto(&app.url(&format!("/{hash}"))).await;
    b.client.refresh().await.expect("reload");
}

/// The totals the page shows, by player, from the scoreboard table.
async fn page_totals(b: &Browser) -> Vec<(String, i64)> {
    let rows = b
        .js("return [...document.querySelectorAll('table.totals tbody tr')].map(r => [r.dataset.player, Number(r.querySelector('.total').textContent)]);")
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

/// Waits until the page's log shows event `seq` (the answer of the last append is in).
async fn wait_for_seq(b: &Browser, seq: i64) {
    b.find(&format!(".log li[data-seq=\"{seq}\"]")).await;
}

/// One player's Mint Condition round entered with the steppers' number fields.
async fn enter_cards(b: &Browser, player: &str, cards: &[(&str, i64)]) {
    for (card, n) in cards {
        b.fill(
            &format!("fieldset[data-player=\"{player}\"] input[data-card=\"{card}\"]"),
            &n.to_string(),
        )
        .await;
    }
}

/// Clicks a stepper's "+" `n` times (the way a thumb records a card).
async fn tap_plus(b: &Browser, player: &str, card: &str, n: usize) {
    let css =
        format!("fieldset[data-player=\"{player}\"] input[data-card=\"{card}\"] + button.step");
    for _ in 0..n {
        b.click(&css).await;
    }
}

fn sorted(mut v: Vec<(String, i64)>) -> Vec<(String, i64)> {
    v.sort();
    v
}

fn expect(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    sorted(pairs.iter().map(|(n, t)| (n.to_string(), *t)).collect())
}

/// The club token the page stored after creating the club.
async fn stored_token(b: &Browser) -> String {
    b.js("return localStorage.getItem('tabletally.token');")
        .await
        .as_str()
        .expect("a token in local storage")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_club_plays_a_whole_mint_condition_game_and_fixes_a_round_one_typo_in_the_browser() {
    let Some((app, b)) = setup().await else {
        return;
    };
    // A new club, created on the page.
    b.goto(&app.url("/")).await;
    b.fill(
        "form[data-pointer=\"/name\"] input[name=\"name\"]",
        "Friday games",
    )
    .await;
    b.click("form[data-pointer=\"/name\"] button[type=\"submit\"]")
        .await;
    b.find("#club-token").await;
    b.screenshot("01-club-created", None).await;
    let token = stored_token(&b).await;
    let club = TestClub {
        id: String::new(),
        token,
    };

    // A game of Mint Condition for Ann and Bo.
    b.click("a.button.primary[href=\"#/new\"]").await;
    b.select("select[name=\"game\"]", "mint-condition").await;
    b.fill(".players li:nth-child(1) input[name=\"player\"]", "Ann")
        .await;
    b.fill(".players li:nth-child(2) input[name=\"player\"]", "Bo")
        .await;
    b.screenshot("02-new-game", None).await;
    b.click("form.new-game button[type=\"submit\"]").await;

    // Round 1 (the README's example): Ann 22, Bo 11. Ann's cards tapped in with "+".
    b.find("fieldset[data-player=\"Ann\"]").await;
    tap_plus(&b, "Ann", "animal-kingdom", 3).await;
    tap_plus(&b, "Ann", "be-careful", 1).await;
    tap_plus(&b, "Ann", "fine-wine", 1).await;
    tap_plus(&b, "Ann", "legacy-edition", 1).await;
    tap_plus(&b, "Ann", "memories", 1).await;
    enter_cards(
        &b,
        "Bo",
        &[
            ("be-careful", 2),
            ("heavy-rotation", 2),
            ("autographed", 2),
            ("lost-pieces", 1),
        ],
    )
    .await;
    let count = b.text("fieldset[data-player=\"Ann\"] .count").await;
    assert!(count.starts_with("7 of 7 cards"), "{count}");
    b.screenshot("03-round-1-entry", Some("fieldset[data-player=\"Bo\"]"))
        .await;
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 2).await;
    assert_eq!(page_totals(&b).await, expect(&[("Ann", 22), ("Bo", 11)]));

    // Round 2: Ann 0 + 5 + 1 + 4 = 10; Bo 3 + 7 + 6 + 4 = 20.
    enter_cards(
        &b,
        "Ann",
        &[
            ("autographed", 2),
            ("heavy-rotation", 1),
            ("be-careful", 2),
            ("fine-wine", 2),
        ],
    )
    .await;
    enter_cards(
        &b,
        "Bo",
        &[
            ("be-careful", 1),
            ("memories", 2),
            ("animal-kingdom", 3),
            ("legacy-edition", 1),
        ],
    )
    .await;
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 3).await;

    // Round 3: Ann 3 + 5 + 0 = 8; Bo 0 + 3 + 3 = 6.
    enter_cards(
        &b,
        "Ann",
        &[("heavy-rotation", 3), ("memories", 3), ("be-careful", 1)],
    )
    .await;
    enter_cards(
        &b,
        "Bo",
        &[
            ("be-careful", 3),
            ("snack-fingers", 2),
            ("heavy-rotation", 2),
        ],
    )
    .await;
    b.click("#entry button[type=\"submit\"]").await;
    wait_for_seq(&b, 4).await;

    // Damage: Ann 40, Bo 37 → Bo wins (the lowest total).
    assert_eq!(page_totals(&b).await, expect(&[("Ann", 40), ("Bo", 37)]));
    let caption = b.text("table.totals caption").await;
    assert!(caption.contains("Winner: Bo"), "{caption}");
    let ann_lines = b
        .js("const d = document.querySelector('details.breakdown[data-player=\"Ann\"]'); d.open = true; return d.textContent;")
        .await;
    let ann_lines = ann_lines.as_str().unwrap();
    assert!(ann_lines.contains("Round 1: 22"), "{ann_lines}");
    assert!(ann_lines.contains("Fine Wine"), "{ann_lines}");
    let game_id = b
        .js("return location.hash.split('/')[2];")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    // The page shows exactly what the API answers.
    let api_score = app.score(&club, &game_id).await;
    assert_eq!(page_totals(&b).await, sorted(totals(&api_score)));
    b.screenshot("04-scoreboard", Some(".board")).await;

    // After round 3, a typo in round 1 is fixed from the log: Ann had two Memories, not one
    // Memories and one Legacy Edition → her round 1 is 3 + 6 + 2 + 7 = 18, total 36: Ann wins.
    b.click(".log li[data-seq=\"2\"] .log-actions button").await;
    b.find("#correction").await;
    enter_cards(&b, "Ann", &[("legacy-edition", 0), ("memories", 2)]).await;
    b.fill("#correction input[name=\"reason\"]", "Ann had two Memories")
        .await;
    b.screenshot("05-correction", Some("#correction")).await;
    b.click("#correction button[type=\"submit\"]").await;
    wait_for_seq(&b, 5).await;
    b.wait_text("table.totals caption", |t| t.contains("Winner: Ann"))
        .await;
    assert_eq!(page_totals(&b).await, expect(&[("Ann", 36), ("Bo", 37)]));
    let marked = b.text(".log li[data-seq=\"2\"] .mark").await;
    assert!(marked.contains("corrected by #5"), "{marked}");
    b.screenshot("06-corrected", Some(".board")).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_round_shows_the_rules_words_next_to_the_player_it_names() {
    let Some((app, b)) = setup().await else {
        return;
    };
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    open_club(&app, &b, &club, &format!("#/game/{game}")).await;
    b.find("fieldset[data-player=\"Bo\"]").await;
    enter_cards(&b, "Ann", &[("animal-kingdom", 7)]).await;
    // Bo has only six cards: two players collect seven each.
    enter_cards(&b, "Bo", &[("autographed", 6)]).await;
    b.click("#entry button[type=\"submit\"]").await;

    // The same request over the API says which rule and which field.
    let direct = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event(
                "round_collected",
                json!({"round": 1, "collections": {
                    "Ann": ["animal-kingdom", "animal-kingdom", "animal-kingdom", "animal-kingdom", "animal-kingdom", "animal-kingdom", "animal-kingdom"],
                    "Bo": ["autographed", "autographed", "autographed", "autographed", "autographed", "autographed"]}}),
            )],
        )
        .await;
    let problem = direct.problem(422).clone();
    let detail = problem["detail"].as_str().unwrap();
    assert!(
        problem["pointer"]
            .as_str()
            .unwrap()
            .starts_with("/events/0/data/collections/Bo"),
        "{problem}"
    );
    let shown = b.text("fieldset[data-player=\"Bo\"] .field-error").await;
    assert_eq!(shown, detail);
    assert!(
        b.js(
            "return document.querySelector('fieldset[data-player=\"Ann\"] .field-error') === null;"
        )
        .await
        .as_bool()
        .unwrap()
    );
    b.screenshot(
        "07-refused",
        Some("fieldset[data-player=\"Bo\"] .field-error"),
    )
    .await;
    b.close().await;
}

/// The scoreboard's totals once the page shows the game finished.
#[allow(dead_code)]
async fn finished_totals(b: &Browser) -> Vec<(String, i64)> {
    b.wait_text("header.game-head .status", |t| t == "finished")
        .await;
    page_totals(b).await
}

