//! Nothing blocks the table: a Record tapped twice in a silent dead spot is queued once, shows
//! "Sending…" at once, waits in sight above the next form and can be taken back; the games list
//! follows the club. The dead spot is made here, as a phone's signal makes it: a proxy between
//! the browser and the server that accepts and reads but forwards nothing until released.
//! Real headless Chromium, on SQLite (see `pad.rs`).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use tabletally_api::config::CLIENT_REQUEST_TIMEOUT;

use crate::browser::{Browser, browser, browser_speaking};
use crate::helpers::{Backend, TestApp, TestClub, spawn_app, totals};
use crate::pad::{
    enter_cards, enter_round_two, expect, mint_condition_round, page_totals, stored_events,
};

/// A phone's signal between the browser and the server. Open, it passes everything; held, it
/// still accepts connections and reads what the browser sends, but forwards nothing either way
/// (no refusal, no answer: a dead spot) until released, when what it held goes on in order.
/// Cut, it closes every connection open so far (the phone moved to another network).
struct Signal {
    /// The address the browser opens instead of the server's.
    address: String,
    held: watch::Sender<bool>,
    /// How many times it was cut: a connection lives while the count it was opened at stands.
    cuts: watch::Sender<u64>,
}

impl Signal {
    async fn to(app: &TestApp) -> Signal {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let address = format!("http://{}", listener.local_addr().expect("its address"));
        let server = app.address.trim_start_matches("http://").to_owned();
        let (held, watching) = watch::channel(false);
        let (cuts, counting) = watch::channel(0);
        tokio::spawn(async move {
            while let Ok((phone, _)) = listener.accept().await {
                let Ok(upstream) = TcpStream::connect(&server).await else {
                    continue;
                };
                let (phone_in, phone_out) = phone.into_split();
                let (server_in, server_out) = upstream.into_split();
                let (watching, counting) = (watching.clone(), counting.clone());
                tokio::spawn(pass(
                    phone_in,
                    server_out,
                    watching.clone(),
                    counting.clone(),
                ));
                tokio::spawn(pass(server_in, phone_out, watching, counting));
            }
        });
        Signal {
            address,
            held,
            cuts,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn hold(&self) {
        self.held.send_replace(true);
    }

    fn release(&self) {
        self.held.send_replace(false);
    }

    fn cut(&self) {
        self.cuts.send_modify(|n| *n += 1);
    }
}

/// Copies one direction of a connection, each piece only while the signal is not held, until
/// the signal is cut.
async fn pass(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut held: watch::Receiver<bool>,
    mut cuts: watch::Receiver<u64>,
) {
    let opened_at = *cuts.borrow();
    let mut piece = vec![0u8; 16 * 1024];
    loop {
        let n = tokio::select! {
            n = from.read(&mut piece) => n.unwrap_or(0),
            _ = cuts.wait_for(|n| *n != opened_at) => return,
        };
        if held.wait_for(|h| !*h).await.is_err() {
            return;
        }
        if n == 0 || to.write_all(&piece[..n]).await.is_err() {
            let _ = to.shutdown().await;
            return;
        }
    }
}

/// The server on SQLite, the signal in front of it and a phone-sized browser (in `languages`,
/// when given); `None` when Chromium is missing (skipped).
async fn table(languages: Option<&str>) -> Option<(TestApp, Signal, Browser)> {
    let b = match languages {
        Some(languages) => browser_speaking(languages).await?,
        None => browser().await?,
    };
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let signal = Signal::to(&app).await;
    Some((app, signal, b))
}

/// A Mint Condition game of Ann and Bo with round 1 stored; the page open on it through the
/// signal, live, at round 2.
async fn at_round_two(app: &TestApp, signal: &Signal, b: &Browser) -> (TestClub, String) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    let stored = app
        .append(&club, &game, Some(1), vec![mint_condition_round(1)])
        .await;
    assert_eq!(stored.status, 201, "{}", stored.body);
    b.goto(&signal.url("/")).await;
    b.js(&format!(
        "localStorage.setItem('tabletally.token', {}); return true;",
        json!(club.token)
    ))
    .await;
    b.goto(&signal.url(&format!("/#/game/{game}"))).await;
    b.client.refresh().await.expect("reload");
    b.find(".log li[data-seq=\"2\"]").await;
    b.wait_text("header.game-head .meta", |t| t.contains('●'))
        .await;
    b.find("#entry fieldset[data-player=\"Bo\"]").await;
    (club, game)
}

/// Waits until `script` (a JavaScript expression) is true on the page.
async fn until(b: &Browser, script: &str) {
    for _ in 0..300 {
        if b.js(&format!("return Boolean({script});")).await == json!(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("never true: {script}");
}

/// How many entries the waiting box lists.
async fn waiting_entries(b: &Browser) -> Value {
    b.js("return document.querySelectorAll('#waiting .waiting-entry').length;")
        .await
}

/// Whether the top of the element matching `css` is on the phone's screen.
async fn in_view(b: &Browser, css: &str) -> bool {
    let top = b
        .js(&format!(
            "return document.querySelector({css}).getBoundingClientRect().top;",
            css = json!(css)
        ))
        .await;
    let top = top.as_f64().expect("a position");
    let bottom = b.js("return innerHeight;").await.as_f64().unwrap() - 40.0;
    eprintln!("{css}: top {top} of {bottom}");
    // Scrolled to, it may sit a fraction of a pixel above the top.
    (-1.0..bottom).contains(&top)
}

/// Record tapped, then tapped again (a thumb's double tap, and a second submit of the form):
/// what the button says right after.
async fn double_tap_record(b: &Browser) -> Value {
    b.js("const f = document.getElementById('entry'); const r = f.querySelector('button[type=\"submit\"]');
          r.click(); r.click(); f.requestSubmit(); return [r.textContent, r.disabled];")
        .await
}

/// The Mint Condition round 2 of `pad.rs` (Ann 10, Bo 20), as its waiting entry lists it.
const ROUND_TWO_ANN: &str =
    "Ann: Autographed ×2, Be Careful! ×2, Fine Wine ×2, Heavy Rotation ×1 (7 cards)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_tapped_twice_in_a_dead_spot_queues_the_round_once_in_sight_and_it_is_stored_once() {
    let Some((app, signal, b)) = table(None).await else {
        return;
    };
    let (club, game) = at_round_two(&app, &signal, &b).await;
    enter_round_two(&b).await;

    // The signal goes silent: Record says "Sending…" at once, and a second tap queues nothing.
    signal.hold();
    assert_eq!(double_tap_record(&b).await, json!(["Sending…", true]));
    b.wait_text("#waiting .waiting-count", |t| {
        t == "1 round waiting to be sent"
    })
    .await;

    // The table goes on with round 3 while round 2 waits, in sight right above its form, listed
    // as the form showed it (card names, not ids).
    b.wait_text(".entry-box h2", |t| t == "Round 3 of 3").await;
    assert_eq!(waiting_entries(&b).await, json!(1));
    let listed = b.text("#waiting .waiting-list").await;
    assert!(listed.contains("Round 2 of 3"), "{listed}");
    assert!(listed.contains(ROUND_TWO_ANN), "{listed}");
    assert!(
        in_view(&b, "#waiting").await,
        "the waiting box scrolled away"
    );
    assert!(
        in_view(&b, ".entry-box h2").await,
        "the next form is out of sight"
    );
    b.screenshot("deadspot-01-waiting-above-the-next-round", None)
        .await;

    // Round 3's Record now is a new step, not round 2 again; nothing more is queued meanwhile.
    assert_eq!(waiting_entries(&b).await, json!(1));

    // The signal is back: round 2 is stored once, nobody is shown as "another phone", and the
    // page goes on by itself at round 3.
    signal.release();
    until(&b, "document.getElementById('waiting') === null").await;
    b.find(".log li[data-seq=\"3\"]").await;
    b.wait_text(".entry-box h2", |t| t == "Round 3 of 3").await;
    assert_eq!(
        b.js("return document.getElementById('conflict') === null;")
            .await,
        json!(true)
    );
    let log = stored_events(&app, &club, &game).await;
    let rounds: Vec<(&str, i64)> = log
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["data"]["round"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        rounds,
        [
            ("game_started", 0),
            ("round_collected", 1),
            ("round_collected", 2)
        ]
    );
    let expected = expect(&[("Ann", 32), ("Bo", 31)]);
    assert_eq!(totals(&app.score(&club, &game).await), expected);
    until(
        &b,
        "document.querySelectorAll('table.totals tbody tr').length === 2",
    )
    .await;
    assert_eq!(page_totals(&b).await, expected);
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_waiting_in_a_dead_spot_is_taken_back_and_recorded_again_and_only_the_second_counts()
 {
    let Some((app, signal, b)) = table(None).await else {
        return;
    };
    let (club, game) = at_round_two(&app, &signal, &b).await;
    enter_round_two(&b).await;
    signal.hold();
    b.click("#entry button[type=\"submit\"]").await;
    b.wait_text(".entry-box h2", |t| t == "Round 3 of 3").await;

    // Ann had one Fine Wine, not two: the waiting round is taken back (it was on its way, so the
    // page will look for it in the log), and round 2's form comes back.
    b.click("#waiting button.take-back").await;
    b.wait_text(".entry-box h2", |t| t == "Round 2 of 3").await;
    b.wait_text("#notice", |t| {
        t == "Round 2 of 3 taken back: record it again below."
    })
    .await;
    let shown = b.text("#waiting").await;
    assert!(shown.contains("Taken back."), "{shown}");
    enter_round_two(&b).await;
    enter_cards(&b, "Ann", &[("fine-wine", 1), ("memories", 1)]).await;
    b.click("#entry button[type=\"submit\"]").await;
    b.wait_text("#waiting .waiting-count", |t| {
        t == "1 round waiting to be sent"
    })
    .await;
    b.screenshot(
        "deadspot-02-taken-back-and-recorded-again",
        Some("#waiting"),
    )
    .await;

    // The signal is back. Whatever reached the server of the first try is taken back in the
    // log; the second try is round 2, stored once, and counts.
    signal.release();
    until(&b, "document.getElementById('waiting') === null").await;
    b.wait_text(".entry-box h2", |t| t == "Round 3 of 3").await;
    let log = stored_events(&app, &club, &game).await;
    let counting: Vec<&Value> = log
        .iter()
        .filter(|e| e["type"] == "round_collected" && e["retracted_by"].is_null())
        .collect();
    assert_eq!(counting.len(), 2, "{log:?}");
    assert_eq!(counting[1]["data"]["round"], 2);
    let anns = counting[1]["data"]["collections"]["Ann"]
        .as_array()
        .unwrap();
    assert_eq!(
        anns.iter().filter(|c| *c == "fine-wine").count(),
        1,
        "{anns:?}"
    );
    for retract in log.iter().filter(|e| e["type"] == "retract") {
        assert_eq!(
            retract["data"]["reason"],
            "taken back on the phone before it was sent"
        );
    }
    // Round 2 as recorded the second time: Ann 0 + 5 + 3 + 1 … as the server counts it.
    let score = totals(&app.score(&club, &game).await);
    until(
        &b,
        "document.querySelectorAll('table.totals tbody tr').length === 2",
    )
    .await;
    assert_eq!(page_totals(&b).await, score);
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_the_server_gave_up_waiting_for_in_a_dead_spot_is_sent_again_and_stored_once() {
    let Some((app, signal, b)) = table(None).await else {
        return;
    };
    let (club, game) = at_round_two(&app, &signal, &b).await;
    enter_round_two(&b).await;

    // The phone moves to a silent network: Record opens a new connection, whose request the
    // server waits for in vain, then answers 408 (held until the signal is back).
    signal.cut();
    signal.hold();
    b.click("#entry button[type=\"submit\"]").await;
    b.wait_text("#waiting .waiting-count", |t| {
        t == "1 round waiting to be sent"
    })
    .await;
    tokio::time::sleep(CLIENT_REQUEST_TIMEOUT + Duration::from_secs(1)).await;

    // The signal is back: the 408 means the server stored nothing, so round 2 waits and is sent
    // again by itself, not shown as refused; it is stored once.
    signal.release();
    until(&b, "document.getElementById('waiting') === null").await;
    b.wait_text(".entry-box h2", |t| t == "Round 3 of 3").await;
    let log = stored_events(&app, &club, &game).await;
    let rounds: Vec<i64> = log
        .iter()
        .filter(|e| e["type"] == "round_collected")
        .map(|e| e["data"]["round"].as_i64().unwrap())
        .collect();
    assert_eq!(rounds, [1, 2]);
    assert_eq!(
        totals(&app.score(&club, &game).await),
        expect(&[("Ann", 32), ("Bo", 31)])
    );
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_waiting_box_names_the_cards_and_the_bets_in_the_phones_language() {
    for (languages, lang, round_three, ann_line) in [
        (
            "fr-FR,fr",
            "fr",
            "Manche 3 sur 3",
            "Ann : Autographed ×2, Be Careful! ×2, Fine Wine ×2, Heavy Rotation ×1 (7 cartes)",
        ),
        (
            "fa-IR,fa",
            "fa",
            "دور ۳ از ۳",
            "Ann: Autographed ×۲، Be Careful! ×۲، Fine Wine ×۲، Heavy Rotation ×۱ (۷ کارت)",
        ),
    ] {
        let Some((app, signal, b)) = table(Some(languages)).await else {
            return;
        };
        let _ = at_round_two(&app, &signal, &b).await;
        enter_round_two(&b).await;
        signal.hold();
        b.click("#entry button[type=\"submit\"]").await;
        b.find("#waiting .take-back").await;
        let listed = b
            .js("return document.querySelector('#waiting .waiting-list .contents li').textContent.replace(/[\\u2068\\u2069]/g, '');")
            .await;
        assert_eq!(listed, json!(ann_line), "{lang}");
        b.wait_text(".entry-box h2", |t| t == round_three).await;
        assert!(in_view(&b, "#waiting").await, "{lang}");
        b.screenshot(&format!("deadspot-03-waiting-{lang}"), None)
            .await;
        signal.release();
        until(&b, "document.getElementById('waiting') === null").await;
        b.close().await;
    }

    // A Mint Julep bet reads as the form says it.
    let Some((app, signal, b)) = table(None).await else {
        return;
    };
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    b.goto(&signal.url("/")).await;
    b.js(&format!(
        "localStorage.setItem('tabletally.token', {}); return true;",
        json!(club.token)
    ))
    .await;
    b.goto(&signal.url(&format!("/#/game/{game}"))).await;
    b.client.refresh().await.expect("reload");
    b.wait_text("header.game-head .meta", |t| t.contains('●'))
        .await;
    b.select("select[data-player=\"Ann\"]", "you-got-me").await;
    b.select("select[data-player=\"Bo\"]", "alaskan-justice")
        .await;
    signal.hold();
    b.click("#entry button[type=\"submit\"]").await;
    let listed = b
        .wait_text("#waiting .waiting-list", |t| t.contains("bets on"))
        .await;
    assert!(listed.contains("Ann bets on You Got Me"), "{listed}");
    assert!(listed.contains("Bo bets on Alaskan Justice"), "{listed}");
    assert!(!listed.contains('{'), "{listed}");
    signal.release();
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_games_list_shows_a_game_another_phone_starts_and_games_reads_it_again() {
    for (languages, lang) in [("en-US,en", "en"), ("fr-FR,fr", "fr"), ("fa-IR,fa", "fa")] {
        let Some(b) = browser_speaking(languages).await else {
            return;
        };
        games_list_follows_the_club(&b, lang).await;
        b.close().await;
    }
}

async fn games_list_follows_the_club(b: &Browser, lang: &str) {
    let app = spawn_app(Backend::Sqlite)
        .await
        .expect("sqlite always runs");
    let club = app.new_club().await;
    let first = app
        .new_game(
            &club,
            json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    crate::pad::open_club(&app, b, &club, "#/").await;
    b.find(&format!("ul.games li[data-game=\"{first}\"]")).await;

    // Another phone starts a game: it shows up without a reload.
    b.js("window.notReloaded = true; return true;").await;
    let second = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Cy"}, {"name": "Di"}]}),
        )
        .await;
    b.find(&format!("ul.games li[data-game=\"{second}\"]"))
        .await;
    b.screenshot(&format!("deadspot-04-games-list-{lang}"), None)
        .await;

    // "Games" tapped on the list reads it again (a list drawn anew), still without a reload.
    b.js("document.querySelector('ul.games').dataset.old = 'yes'; return true;")
        .await;
    b.click("header.top nav a[href=\"#/\"]").await;
    until(b, "document.querySelector('ul.games:not([data-old])')").await;
    b.find(&format!("ul.games li[data-game=\"{second}\"]"))
        .await;
    assert_eq!(
        b.js("return window.notReloaded === true;").await,
        json!(true),
        "{lang}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_waiting_for_one_club_goes_with_its_key_after_the_phone_opens_another_club() {
    let Some((mut app, signal, b)) = table(None).await else {
        return;
    };
    let (club, game) = at_round_two(&app, &signal, &b).await;
    let other = app.new_club().await;
    b.js(&format!(
        "localStorage.setItem('tabletally.earlier', JSON.stringify([{{name: 'Other club', token: {}}}])); return true;",
        json!(other.token)
    ))
    .await;

    // Round 2 is recorded while the server is away: it waits on the phone.
    app.stop_server().await;
    enter_round_two(&b).await;
    b.click("#entry button[type=\"submit\"]").await;
    b.wait_text("#waiting .waiting-count", |t| {
        t == "1 round waiting to be sent"
    })
    .await;

    // The phone opens the other club, then the server is back: the round goes with its own
    // club's key, never with the other club's.
    b.js("location.hash = '#/club'; return true;").await;
    b.click("#earlier-clubs button").await;
    until(
        &b,
        &format!(
            "localStorage.getItem('tabletally.token') === {}",
            json!(other.token)
        ),
    )
    .await;
    app.start_server_again().await;
    for _ in 0..300 {
        if app.version(&club, &game).await == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = stored_events(&app, &club, &game).await;
    assert_eq!(log.len(), 3, "{log:?}");
    assert_eq!(log[2]["data"]["round"], 2);
    let others = app.get("/v1/games", Some(&other.token)).await;
    assert_eq!(others.body["games"], json!([]));
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_two_entries_panel_names_the_cards_in_the_phones_language() {
    for (languages, lang, mine_line, theirs_fine_wine) in [
        ("en-US,en", "en", ROUND_TWO_ANN, "Fine Wine ×1"),
        (
            "fr-FR,fr",
            "fr",
            "Ann : Autographed ×2, Be Careful! ×2, Fine Wine ×2, Heavy Rotation ×1 (7 cartes)",
            "Fine Wine ×1",
        ),
        (
            "fa-IR,fa",
            "fa",
            "Ann: Autographed ×۲، Be Careful! ×۲، Fine Wine ×۲، Heavy Rotation ×۱ (۷ کارت)",
            "Fine Wine ×۱",
        ),
    ] {
        let Some((app, signal, b)) = table(Some(languages)).await else {
            return;
        };
        let (club, game) = at_round_two(&app, &signal, &b).await;
        enter_round_two(&b).await;
        signal.hold();
        b.click("#entry button[type=\"submit\"]").await;
        b.find("#waiting .take-back").await;

        // Meanwhile another phone records round 2 with one of Ann's Fine Wines a Memories.
        let mut theirs = mint_condition_round(2);
        theirs["data"]["collections"]["Ann"][6] = json!("memories");
        let stored = app.append(&club, &game, Some(2), vec![theirs]).await;
        assert_eq!(stored.status, 201, "{}", stored.body);
        signal.release();

        // Both entries read as the form shows them, in the phone's language.
        let clean = |t: &str| t.replace(['\u{2068}', '\u{2069}'], "");
        let theirs = b
            .wait_text("#conflict .theirs", |t| clean(t).contains(theirs_fine_wine))
            .await;
        let mine = b
            .wait_text("#conflict .mine", |t| clean(t).contains(mine_line))
            .await;
        let headline = b.text("#conflict h3").await;
        for shown in [&theirs, &mine, &headline] {
            assert!(!shown.contains("club token"), "{lang}: {shown}");
            assert!(!shown.contains('{'), "{lang}: {shown}");
            assert!(!shown.contains("fine-wine"), "{lang}: {shown}");
        }
        b.screenshot(
            &format!("deadspot-05-two-entries-{lang}"),
            Some("#conflict"),
        )
        .await;
        b.close().await;
    }
}
