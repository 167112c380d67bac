//! The score pad reaches every phone at the table: links and QR codes use an address the
//! phones can open (the public one, or the computer's LAN address), and "Add a phone" hands a
//! phone a key of its own, so the log names whose phone recorded each round. Real headless
//! Chromium, on SQLite (see `pad.rs`).

use serde_json::json;

use crate::browser::{Browser, browser, browser_speaking};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app, spawn_app_with};
use crate::pad::open_club;

/// A server listening on every interface (as for a game night), and a phone-sized browser.
async fn game_night() -> Option<(TestApp, Browser)> {
    let b = browser().await?;
    let app = spawn_app_with(Backend::Sqlite, |c| c.addr = "0.0.0.0:0".into())
        .await
        .expect("sqlite always runs");
    Some((app, b))
}

/// The computer's address on its network with the server's port: what a phone would open.
fn lan_address(app: &TestApp) -> String {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    socket.connect("192.0.2.1:9").unwrap();
    let ip = socket.local_addr().unwrap().ip();
    let port = app.address.rsplit(':').next().unwrap();
    format!("http://{ip}:{port}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_added_on_the_club_page_opens_the_club_from_its_link_and_the_log_names_it() {
    let Some((app, b)) = game_night().await else {
        return;
    };
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;

    // The organiser, on the computer (127.0.0.1), adds Ann's phone.
    open_club(&app, &b, &club, "#/club").await;
    b.fill("#add-phone input[name=\"owner\"]", "Ann").await;
    b.click("#add-phone button[type=\"submit\"]").await;
    let link = b.find("#phone-link").await;
    let href = link
        .attr("href")
        .await
        .unwrap()
        .expect("the link's address");
    b.screenshot("30-add-a-phone", Some("#add-phone")).await;

    // The link points at the computer's LAN address, never at 127.0.0.1, and carries a new
    // write key named after the phone's owner.
    let prefix = format!("{}/#/join/", lan_address(&app));
    assert!(href.starts_with(&prefix), "{href}");
    let key = href[prefix.len()..].to_owned();
    let tokens = app.get("/v1/tokens", Some(&club.token)).await;
    let issued: Vec<(&str, &str)> = tokens.body["tokens"]
        .as_array()
        .expect("tokens")
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(issued, [("Ann's phone", "write")]);
    let qr = b
        .find("#add-phone img.qr")
        .await
        .attr("src")
        .await
        .unwrap()
        .expect("the QR code's address");
    assert!(qr.ends_with(&format!("?text={}", encode(&href))), "{qr}");
    b.click("#add-phone .copy button").await;
    b.wait_text("#add-phone .copy-status", |t| !t.is_empty())
        .await;
    assert_eq!(b.text("#add-phone .copy-status").await, "Copied");

    // Ann's phone (a browser with nothing stored) opens the link: the club opens with her key,
    // which leaves the address bar.
    b.js("localStorage.clear(); return true;").await;
    b.goto(&href).await;
    b.wait_text("h1", |t| t != "Opening the club…").await;
    let stored = b
        .js("return [localStorage.getItem('tabletally.token'), location.hash];")
        .await;
    assert_eq!(stored, json!([key, "#/"]));

    // A round recorded with her key is hers in the log.
    let phone = TestClub {
        id: club.id.clone(),
        token: key,
    };
    let round = event(
        "round_collected",
        json!({"round": 1, "collections": {
            "Ann": ["animal-kingdom", "animal-kingdom", "animal-kingdom", "be-careful", "fine-wine", "legacy-edition", "memories"],
            "Bo": ["be-careful", "be-careful", "heavy-rotation", "heavy-rotation", "autographed", "autographed", "lost-pieces"]}}),
    );
    let appended = app.append(&phone, &game, Some(1), vec![round]).await;
    assert_eq!(appended.status, 201, "{}", appended.body);
    b.goto(&format!("{}/#/game/{game}", lan_address(&app)))
        .await;
    b.find(".log li[data-seq=\"2\"]").await;
    assert_eq!(
        b.text(".log li[data-seq=\"2\"] .who").await,
        "· by Ann's phone"
    );

    // Her page is plain http on the network (no secure context, so no Clipboard API): a share
    // link made there uses that address, and "Copy the link" still copies and says so.
    assert_eq!(b.js("return window.isSecureContext;").await, json!(false));
    b.click("#share-form button[type=\"submit\"]").await;
    let shared = b
        .find("#share-link")
        .await
        .attr("href")
        .await
        .unwrap()
        .expect("the link's address");
    assert!(
        shared.starts_with(&format!("{}/#/share/{game}/", lan_address(&app))),
        "{shared}"
    );
    b.click(".share-box .copy button").await;
    b.wait_text(".share-box .copy-status", |t| !t.is_empty())
        .await;
    assert_eq!(b.text(".share-box .copy-status").await, "Copied");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_share_link_made_on_this_computer_points_at_its_lan_address() {
    let Some((app, b)) = game_night().await else {
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
    b.click("#share-form button[type=\"submit\"]").await;
    let href = b
        .find("#share-link")
        .await
        .attr("href")
        .await
        .unwrap()
        .expect("the link's address");
    let prefix = format!("{}/#/share/{game}/", lan_address(&app));
    assert!(href.starts_with(&prefix), "{href}");
    // The link opens the game read-only on another phone.
    b.js("localStorage.clear(); return true;").await;
    b.goto(&href).await;
    b.find("table.totals").await;
    assert_eq!(b.text(".readonly").await, "· read-only link");
    b.close().await;
}

/// A club of this name, with one game of `game` (so that the page's list of games tells the
/// clubs apart).
async fn club_with_a_game(app: &TestApp, name: &str, game: &str) -> TestClub {
    let created = app.post("/v1/clubs", None, &json!({"name": name})).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let club = TestClub {
        id: created.body["id"].as_str().unwrap().to_owned(),
        token: created.body["token"].as_str().unwrap().to_owned(),
    };
    app.new_game(
        &club,
        json!({"game": game, "players": [{"name": "Ann"}, {"name": "Bo"}]}),
    )
    .await;
    club
}

/// The key the page keeps, and the address bar's hash.
async fn kept_key_and_hash(b: &Browser) -> serde_json::Value {
    b.js("return [localStorage.getItem('tabletally.token'), location.hash];")
        .await
}

/// Waits until the address bar's hash is `hash`.
async fn wait_for_hash(b: &Browser, hash: &str) {
    for _ in 0..200 {
        if b.js("return location.hash;").await == json!(hash) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the address never became {hash}");
}

/// The page's list of games shows this game and not that one.
async fn games_listed(b: &Browser, shown: &str, not_shown: &str) {
    b.wait_text("ul.games", |t| t.contains(shown) && !t.contains(not_shown))
        .await;
}

/// Nowhere on the page, nor in what it shows as text: a key.
async fn assert_no_key_shown(b: &Browser, keys: &[&str]) {
    let page = b.js("return document.documentElement.outerHTML;").await;
    let page = page.as_str().unwrap();
    for key in keys {
        assert!(!page.contains(key), "the page shows a key");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_link_to_another_club_asks_before_switching_and_keeps_the_old_key() {
    let Some(b) = browser().await else {
        return;
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let friday = club_with_a_game(&app, "Friday Club", "mint-condition").await;
    let tuesday = club_with_a_game(&app, "Tuesday Club", "mint-julep").await;
    let tuesday_link = app.url(&format!("/#/join/{}", tuesday.token));

    // The phone is in Friday Club; a link to Tuesday Club asks first, naming both, and keeps
    // nothing of the link until then.
    open_club(&app, &b, &friday, "#/").await;
    games_listed(&b, "Mint Condition", "Mint Julep").await;
    b.goto(&tuesday_link).await;
    let question = b
        .wait_text("#join-question .question", |t| !t.is_empty())
        .await;
    assert_eq!(question, "You are in Friday Club. Switch to Tuesday Club?");
    assert_eq!(b.text("#join-question button.stay").await, "Stay");
    assert_eq!(b.text("#join-question button.switch").await, "Switch");
    assert_eq!(
        b.js("return localStorage.getItem('tabletally.token');")
            .await,
        json!(friday.token)
    );
    b.screenshot("33-join-asks", None).await;

    // Stay: still Friday Club, its games listed, and the link gone from the address bar.
    b.click("#join-question button.stay").await;
    games_listed(&b, "Mint Condition", "Mint Julep").await;
    assert_eq!(kept_key_and_hash(&b).await, json!([friday.token, "#/"]));

    // The link again, and Switch: Tuesday Club's games.
    b.goto(&tuesday_link).await;
    b.wait_text("#join-question .question", |t| {
        t == "You are in Friday Club. Switch to Tuesday Club?"
    })
    .await;
    b.click("#join-question button.switch").await;
    games_listed(&b, "Mint Julep", "Mint Condition").await;
    assert_eq!(kept_key_and_hash(&b).await, json!([tuesday.token, "#/"]));

    // The club page lists Friday Club under earlier clubs, by name only.
    b.goto(&app.url("/#/club")).await;
    b.wait_text("#current-club", |t| t == "Club: Tuesday Club")
        .await;
    assert_eq!(
        b.text("#earlier-clubs h2").await,
        "Earlier clubs on this phone"
    );
    let earlier = b
        .wait_text("#earlier-clubs ul", |t| t.contains("Friday Club"))
        .await;
    assert!(!earlier.contains("Tuesday Club"), "{earlier}");
    assert_no_key_shown(&b, &[&friday.token, &tuesday.token]).await;
    b.screenshot("34-earlier-clubs", Some("#earlier-clubs"))
        .await;

    // Switch back: Friday Club again, and Tuesday Club is the earlier one now.
    b.click("#earlier-clubs li button").await;
    games_listed(&b, "Mint Condition", "Mint Julep").await;
    assert_eq!(kept_key_and_hash(&b).await, json!([friday.token, "#/"]));
    b.goto(&app.url("/#/club")).await;
    b.wait_text("#current-club", |t| t == "Club: Friday Club")
        .await;
    let earlier = b
        .wait_text("#earlier-clubs ul", |t| t.contains("Tuesday Club"))
        .await;
    assert!(!earlier.contains("Friday Club"), "{earlier}");
    assert_no_key_shown(&b, &[&friday.token, &tuesday.token]).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_link_opens_at_once_on_a_new_phone_or_its_own_key_and_a_refused_one_changes_nothing()
{
    let Some(b) = browser().await else {
        return;
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let friday = club_with_a_game(&app, "Friday Club", "mint-condition").await;
    let tuesday = club_with_a_game(&app, "Tuesday Club", "mint-julep").await;

    // No club on the phone: the link opens its club at once, and the page knows its name.
    b.goto(&app.url("/")).await;
    b.js("localStorage.clear(); return true;").await;
    b.goto(&app.url(&format!("/#/join/{}", friday.token))).await;
    b.client.refresh().await.expect("reload");
    games_listed(&b, "Mint Condition", "Mint Julep").await;
    assert_eq!(kept_key_and_hash(&b).await, json!([friday.token, "#/"]));
    assert_eq!(
        b.js("return localStorage.getItem('tabletally.club');")
            .await,
        json!("Friday Club")
    );

    // The key the phone already has: nothing to ask.
    b.goto(&app.url(&format!("/#/join/{}", friday.token))).await;
    wait_for_hash(&b, "#/").await;
    b.wait_text("main h1", |t| t == "Games").await;
    assert_eq!(kept_key_and_hash(&b).await, json!([friday.token, "#/"]));
    assert_eq!(
        b.js("return document.getElementById('join-question');")
            .await,
        json!(null)
    );

    // A link whose key the server refuses says so, and the phone stays in Friday Club.
    let forged = format!("tt.{}.{}", tuesday.id, "0".repeat(64));
    b.goto(&app.url(&format!("/#/join/{forged}"))).await;
    b.wait_text("main h1", |t| t == "This link does not open a club")
        .await;
    assert_eq!(
        b.text("main .field-error").await,
        "Its key was revoked or cut short. Ask for a new link."
    );
    assert_eq!(
        b.js("return localStorage.getItem('tabletally.token');")
            .await,
        json!(friday.token)
    );

    // The list of earlier clubs keeps the last five: the oldest leaves it.
    b.js("localStorage.setItem('tabletally.earlier', JSON.stringify([1, 2, 3, 4, 5].map(n => ({name: `Old ${n}`, token: `tk.old${n}.secret`})))); return true;")
        .await;
    b.goto(&app.url(&format!("/#/join/{}", tuesday.token)))
        .await;
    b.click("#join-question button.switch").await;
    games_listed(&b, "Mint Julep", "Mint Condition").await;
    b.goto(&app.url("/#/club")).await;
    let names = b
        .js("return [...document.querySelectorAll('#earlier-clubs li .name')].map(n => n.textContent);")
        .await;
    assert_eq!(
        names,
        json!(["Friday Club", "Old 1", "Old 2", "Old 3", "Old 4"])
    );
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_link_to_another_club_asks_in_the_phones_language() {
    let Some(b) = browser_speaking("fr-FR,fr").await else {
        return;
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let friday = club_with_a_game(&app, "Club du vendredi", "mint-condition").await;
    let tuesday = club_with_a_game(&app, "Club du mardi", "mint-julep").await;

    open_club(&app, &b, &friday, "#/").await;
    b.goto(&app.url(&format!("/#/join/{}", tuesday.token)))
        .await;
    let question = b
        .wait_text("#join-question .question", |t| !t.is_empty())
        .await;
    assert_eq!(
        question,
        "Vous êtes dans Club du vendredi. Passer à Club du mardi ?"
    );
    assert_eq!(b.text("#join-question h1").await, "Ouvrir ce lien ?");
    assert_eq!(b.text("#join-question button.stay").await, "Rester");
    assert_eq!(b.text("#join-question button.switch").await, "Changer");
    b.screenshot("35-join-asks-fr", None).await;

    b.click("#join-question button.switch").await;
    b.wait_text("ul.games", |t| t.contains("Mint Julep")).await;
    b.goto(&app.url("/#/club")).await;
    assert_eq!(
        b.text("#earlier-clubs h2").await,
        "Clubs précédents sur ce téléphone"
    );
    assert_eq!(b.text("#earlier-clubs li button").await, "Y revenir");
    b.close().await;
}

/// `encodeURIComponent` of a link, as the page builds the QR code's address.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|c| match c {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'!'
            | b'~'
            | b'*'
            | b'\''
            | b'('
            | b')' => (c as char).to_string(),
            _ => format!("%{c:02X}"),
        })
        .collect()
}
