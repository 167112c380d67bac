//! The score pad reaches every phone at the table: links and QR codes use an address the
//! phones can open (the public one, or the computer's LAN address), and "Add a phone" hands a
//! phone a key of its own, so the log names whose phone recorded each round. Real headless
//! Chromium, on SQLite (see `pad.rs`).

use serde_json::json;

use crate::browser::{Browser, browser};
use crate::helpers::{Backend, TestApp, TestClub, event, spawn_app_with};
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
