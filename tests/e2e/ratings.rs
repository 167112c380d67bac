//! Skill ratings over HTTP: hand-computed values for a first game, the chances before a game and
//! the changes after it, and — under random corrections, retractions, earlier games finished
//! late, imports of older games and merges — the ratings a recount of the whole history gives.

use serde_json::{Value, json};
use tabletally_api::ratings::{Rating, rate};

use crate::helpers::{TestApp, TestClub, event};
use crate::on_both_backends;

on_both_backends!(
    the_winner_of_a_first_game_between_two_new_players_rises_as_far_as_the_loser_falls,
    a_game_says_each_players_chance_before_it_and_rating_after_it,
    a_ratings_query_without_a_game_is_refused_and_nothing_is_rated_twice,
    the_ratings_stay_what_a_recount_of_the_whole_history_gives,
    the_ratings_are_openskills_over_two_hundred_random_games_of_the_four_games,
);

/// A finished game known by its totals (`result_recorded`), started at `started_at`.
async fn typed_in(
    app: &TestApp,
    club: &TestClub,
    game: &str,
    started_at: &str,
    totals: &[(&str, i64)],
) -> String {
    let players: Vec<Value> = totals.iter().map(|(n, _)| json!({"name": n})).collect();
    let mut body = json!({"game": game, "players": players, "started_at": started_at});
    if game == "vintage" {
        // Vintage's prizes are the table's to say: none here.
        body["options"] = json!({"prizes": []});
    }
    let id = app.new_game(club, body).await;
    let reply = app
        .append(
            club,
            &id,
            Some(1),
            vec![event("result_recorded", result(totals))],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    id
}

/// A typed-in result: these totals, the highest one's players the winners (the others are
/// ranked by their totals in the game's own direction).
fn result(totals: &[(&str, i64)]) -> Value {
    let best = totals.iter().map(|(_, t)| *t).max().unwrap_or(0);
    let winners: Vec<&str> = totals
        .iter()
        .filter(|(_, t)| *t == best)
        .map(|(n, _)| *n)
        .collect();
    let totals: serde_json::Map<String, Value> = totals
        .iter()
        .map(|(n, t)| ((*n).to_owned(), json!(t)))
        .collect();
    json!({"totals": totals, "winners": winners, "source": "a test"})
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

async fn the_winner_of_a_first_game_between_two_new_players_rises_as_far_as_the_loser_falls(
    app: TestApp,
) {
    // Given Ann beating Bo in their first game of Mint Julep
    let club = app.new_club().await;
    typed_in(
        &app,
        &club,
        "mint-julep",
        "2026-01-10T19:00:00Z",
        &[("Ann", 9), ("Bo", 4)],
    )
    .await;

    // When the club's ratings are read
    let reply = app
        .get("/v1/stats/ratings?game=mint-julep", Some(&club.token))
        .await;

    // Then: c = √(2σ₀² + 2β²) = 13.176…, each one's chance ½; Ann's μ rises by σ₀²/c · ½ and
    // Bo's falls by as much; both σ shrink by √(1 − (σ₀/c)(σ₀²/c²) · ¼).
    assert_eq!(reply.status, 200, "{}", reply.body);
    let ratings = reply.body["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 2, "{}", reply.body);
    let (ann, bo) = (&ratings[0], &ratings[1]);
    assert_eq!(ann["name"], "Ann");
    assert_eq!(bo["name"], "Bo");
    assert!(
        close(ann["mu"].as_f64().unwrap(), 27.63523138347365),
        "{ann}"
    );
    assert!(close(bo["mu"].as_f64().unwrap(), 22.36476861652635), "{bo}");
    for p in [ann, bo] {
        let sigma = p["sigma"].as_f64().unwrap();
        assert!(close(sigma, 8.065506316323548), "{p}");
        assert!(close(
            p["ordinal"].as_f64().unwrap(),
            p["mu"].as_f64().unwrap() - 3.0 * sigma
        ));
        assert_eq!(p["games"], 1);
        assert_eq!(p["last_played_at"], "2026-01-10T19:00:00Z");
    }
    assert_eq!(reply.body["game"], "mint-julep");
    assert_eq!(reply.body["next_cursor"], Value::Null);
    // Another game has no ratings yet; before the game was played, nobody had one.
    let other = app
        .get("/v1/stats/ratings?game=vintage", Some(&club.token))
        .await;
    assert_eq!(other.body["ratings"], json!([]));
    let before = app
        .get(
            "/v1/stats/ratings?game=mint-julep&to=2026-01-10T19:00:00Z",
            Some(&club.token),
        )
        .await;
    assert_eq!(before.body["ratings"], json!([]), "{}", before.body);
}

async fn a_game_says_each_players_chance_before_it_and_rating_after_it(app: TestApp) {
    // Given Ann, who beat Bo, about to play Bo and Cy (new)
    let club = app.new_club().await;
    typed_in(
        &app,
        &club,
        "mint-julep",
        "2026-01-10T19:00:00Z",
        &[("Ann", 9), ("Bo", 4)],
    )
    .await;
    let next = app
        .new_game(
            &club,
            json!({"game": "mint-julep", "players": [{"name": "Bo"}, {"name": "Ann"}, {"name": "Cy"}],
                   "started_at": "2026-01-17T19:00:00Z"}),
        )
        .await;

    // When the game's ratings are read before its first round
    let reply = app
        .get(&format!("/v1/games/{next}/ratings"), Some(&club.token))
        .await;

    // Then each seat has its rating before the game, no rating after it yet, and chances that
    // put Ann first (the table's favourite) and sum to 1
    assert_eq!(reply.status, 200, "{}", reply.body);
    let seats = reply.body["players"].as_array().unwrap();
    let names: Vec<&str> = seats.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Bo", "Ann", "Cy"]);
    let chance = |i: usize| seats[i]["chance"].as_f64().unwrap();
    assert!(close(chance(0) + chance(1) + chance(2), 1.0));
    assert!(
        chance(1) > chance(2) && chance(2) > chance(0),
        "{}",
        reply.body
    );
    assert_eq!(reply.body["favourite"], 2);
    assert!(close(
        seats[1]["before"]["mu"].as_f64().unwrap(),
        27.63523138347365
    ));
    assert!(close(seats[2]["before"]["mu"].as_f64().unwrap(), 25.0));
    assert!(
        seats.iter().all(|s| s.get("after").is_none()),
        "{}",
        reply.body
    );

    // When Cy wins it, with Ann and Bo tied behind
    let reply = app
        .append(
            &club,
            &next,
            Some(1),
            vec![event(
                "result_recorded",
                result(&[("Bo", 5), ("Ann", 5), ("Cy", 8)]),
            )],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);

    // Then each seat's rating after it is the model's update from the ratings before it
    let reply = app
        .get(&format!("/v1/games/{next}/ratings"), Some(&club.token))
        .await;
    let seats = reply.body["players"].as_array().unwrap();
    let before: Vec<Rating> = seats
        .iter()
        .map(|s| Rating {
            mu: s["before"]["mu"].as_f64().unwrap(),
            sigma: s["before"]["sigma"].as_f64().unwrap(),
        })
        .collect();
    let after = rate(&[(before[0], 2), (before[1], 2), (before[2], 1)]);
    for (seat, want) in seats.iter().zip(after) {
        assert!(
            close(seat["after"]["mu"].as_f64().unwrap(), want.mu),
            "{seat}"
        );
        assert!(
            close(seat["after"]["sigma"].as_f64().unwrap(), want.sigma),
            "{seat}"
        );
    }
    // And Cy's history is that one game, ranked first
    let cy = seats[2]["player_id"].as_str().unwrap();
    let history = app
        .get(
            &format!("/v1/players/{cy}/ratings?game=mint-julep"),
            Some(&club.token),
        )
        .await;
    assert_eq!(history.status, 200, "{}", history.body);
    let points = history.body["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0]["game_id"], next);
    assert_eq!(points[0]["rank"], 1);
    assert!(close(points[0]["before"]["mu"].as_f64().unwrap(), 25.0));
}

async fn a_ratings_query_without_a_game_is_refused_and_nothing_is_rated_twice(app: TestApp) {
    let club = app.new_club().await;
    let reply = app.get("/v1/stats/ratings", Some(&club.token)).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(
        reply.body["detail"].as_str().unwrap().contains("game"),
        "{}",
        reply.body
    );
    let unknown = app
        .get("/v1/stats/ratings?game=chess", Some(&club.token))
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    // A player's history of a player the club does not have is 404.
    let nobody = uuid::Uuid::new_v4();
    let reply = app
        .get(
            &format!("/v1/players/{nobody}/ratings?game=vintage"),
            Some(&club.token),
        )
        .await;
    assert_eq!(reply.status, 404, "{}", reply.body);
    // A server started again on the same database rates nothing again.
    typed_in(
        &app,
        &club,
        "mint-condition",
        "2026-02-01T19:00:00Z",
        &[("Ann", 30), ("Bo", 20)],
    )
    .await;
    let first = app
        .get("/v1/stats/ratings?game=mint-condition", Some(&club.token))
        .await;
    let again = app.second_server().await;
    let second = again
        .get("/v1/stats/ratings?game=mint-condition", Some(&club.token))
        .await;
    assert_eq!(first.body["ratings"].as_array().unwrap().len(), 2);
    assert_eq!(first.body["ratings"], second.body["ratings"]);
}

/// A small generator of numbers, seeded: the same sequence on every run.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides
    }
}

/// The club's ratings of `game` recounted from scratch: every finished game's ranks (as its
/// score gives them), in the order the games were played.
async fn recount(app: &TestApp, club: &TestClub, game: &str) -> Vec<(String, f64, f64)> {
    let mut ratings: std::collections::BTreeMap<String, Rating> = Default::default();
    for table in played(app, club, game).await {
        let before: Vec<(Rating, i64)> = table
            .iter()
            .map(|(p, rank)| (ratings.get(p).copied().unwrap_or(Rating::NEW), *rank))
            .collect();
        for ((player, _), after) in table.iter().zip(rate(&before)) {
            ratings.insert(player.clone(), after);
        }
    }
    ratings
        .into_iter()
        .map(|(p, r)| (p, r.mu, r.sigma))
        .collect()
}

/// The club's ratings of `game` as the server answers them, by player id.
async fn served(app: &TestApp, club: &TestClub, game: &str) -> Vec<(String, f64, f64)> {
    let reply = app
        .get(
            &format!("/v1/stats/ratings?game={game}&limit=200"),
            Some(&club.token),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let mut rows: Vec<(String, f64, f64)> = reply.body["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player_id"].as_str().unwrap().to_owned(),
                r["mu"].as_f64().unwrap(),
                r["sigma"].as_f64().unwrap(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

async fn the_ratings_stay_what_a_recount_of_the_whole_history_gives(app: TestApp) {
    let club = app.new_club().await;
    let names = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay"];
    let mut dice = Dice(0x5eed_0054);
    let mut finished: Vec<String> = Vec::new();
    // Where older games come from: another club's export, imported as copies.
    let elsewhere = app.new_club().await;
    // How often each change was made: every kind must have been tried.
    let mut made = std::collections::BTreeMap::<&str, u32>::new();
    for step in 0..40 {
        match dice.roll(10) {
            // A correction of a finished game's totals, or its result retracted (the game
            // is then in progress again, and leaves the ratings).
            0 | 1 if !finished.is_empty() => {
                let which = dice.roll(finished.len() as u64) as usize;
                let game = finished[which].clone();
                let version = app.version(&club, &game).await;
                let change = if dice.roll(3) == 0 {
                    *made.entry("retraction").or_default() += 1;
                    finished.remove(which);
                    event("retract", json!({"seq": 2, "reason": "not played"}))
                } else {
                    let seated = app
                        .get(&format!("/v1/games/{game}"), Some(&club.token))
                        .await;
                    let names: Vec<String> = seated.body["players"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s["name"].as_str().unwrap().to_owned())
                        .collect();
                    let totals: Vec<(&str, i64)> = names
                        .iter()
                        .map(|n| (n.as_str(), dice.roll(4) as i64))
                        .collect();
                    let data = result(&totals);
                    *made.entry("correction").or_default() += 1;
                    event("correct", json!({"seq": 2, "data": data, "reason": "typo"}))
                };
                let reply = app.append(&club, &game, Some(version), vec![change]).await;
                assert_eq!(reply.status, 201, "{}", reply.body);
            }
            // An older game imported: played elsewhere in 2024, before any of this club's.
            3 => {
                let table = [
                    (names[dice.roll(3) as usize], dice.roll(4) as i64),
                    (names[3 + dice.roll(3) as usize], dice.roll(4) as i64),
                ];
                let at = format!("2024-{:02}-01T19:00:00Z", 1 + dice.roll(12));
                let game = typed_in(&app, &elsewhere, "mint-julep", &at, &table).await;
                let (status, _, file) = app.get_text("/v1/export", &elsewhere.token).await;
                assert_eq!(status, 200, "{file}");
                let line = file
                    .lines()
                    .find(|l| l.contains(&game))
                    .expect("the game's line");
                let reply = app
                    .post_raw(
                        "/v1/import?new_ids=true",
                        Some(&club.token),
                        "application/x-ndjson",
                        format!("{line}\n").into_bytes(),
                    )
                    .await;
                assert_eq!(reply.status, 200, "{}", reply.body);
                assert_eq!(reply.body["imported"], 1, "{}", reply.body);
                *made.entry("import").or_default() += 1;
            }
            // A rename: the ratings follow the player, whatever their name.
            4 => {
                let players = app.get("/v1/players", Some(&club.token)).await;
                if let Some(p) = players.body["players"].as_array().unwrap().first() {
                    let id = p["id"].as_str().unwrap();
                    let name = format!("{} {step}", p["name"].as_str().unwrap());
                    let reply = app
                        .patch(
                            &format!("/v1/players/{id}"),
                            Some(&club.token),
                            &json!({"name": name}),
                        )
                        .await;
                    assert_eq!(reply.status, 200, "{}", reply.body);
                    *made.entry("rename").or_default() += 1;
                }
            }
            // A merge of two players (once each player has played).
            2 if step > 20 => {
                let players = app.get("/v1/players", Some(&club.token)).await;
                let list = players.body["players"].as_array().unwrap();
                if list.len() > 3 {
                    let from = list[dice.roll(list.len() as u64) as usize]["id"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                    let into = list[dice.roll(list.len() as u64) as usize]["id"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                    if from != into {
                        let reply = app
                            .post(
                                &format!("/v1/players/{from}/merge"),
                                Some(&club.token),
                                &json!({"into": into}),
                            )
                            .await;
                        // Two who sat at one game cannot be merged: 409, and nothing changes.
                        assert!(matches!(reply.status.as_u16(), 200 | 409), "{}", reply.body);
                        if reply.status == 200 {
                            *made.entry("merge").or_default() += 1;
                        }
                    }
                }
            }
            // A game, finished now, played at any time of the year (earlier ones too).
            _ => {
                let mut seated: Vec<&str> = names.to_vec();
                let count = 2 + dice.roll(3) as usize;
                let mut table = Vec::with_capacity(count);
                for _ in 0..count {
                    let i = dice.roll(seated.len() as u64) as usize;
                    // Few totals, so ties are frequent.
                    table.push((seated.remove(i), dice.roll(4) as i64));
                }
                let day = 1 + dice.roll(28);
                let month = 1 + dice.roll(12);
                let at = format!("2025-{month:02}-{day:02}T19:{:02}:00Z", dice.roll(60));
                finished.push(typed_in(&app, &club, "mint-julep", &at, &table).await);
            }
        }
        // Then the ratings are what a recount from scratch gives
        let want = recount(&app, &club, "mint-julep").await;
        let got = served(&app, &club, "mint-julep").await;
        assert_eq!(
            got.len(),
            want.len(),
            "step {step}: {got:?} against {want:?}"
        );
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.0, w.0, "step {step}");
            assert!(
                close(g.1, w.1) && close(g.2, w.2),
                "step {step}: {g:?} against {w:?}"
            );
        }
    }
    let kinds: Vec<&str> = made.keys().copied().collect();
    assert_eq!(
        kinds,
        ["correction", "import", "merge", "rename", "retraction"],
        "{made:?}"
    );
}

/// The games a game of each kind may seat.
const TABLES: [(&str, usize, usize); 4] = [
    ("mint-condition", 2, 5),
    ("mind-up", 3, 6),
    ("mint-julep", 2, 4),
    ("vintage", 3, 6),
];

async fn the_ratings_are_openskills_over_two_hundred_random_games_of_the_four_games(app: TestApp) {
    // Given 200 games of the four games, finished with random totals (ties frequent), played in
    // an order other than the one they were recorded in
    let club = app.new_club().await;
    let names = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy"];
    let mut dice = Dice(0x0045_6b11);
    for _ in 0..200 {
        let (game, least, most) = TABLES[dice.roll(4) as usize];
        let count = least + dice.roll((most - least + 1) as u64) as usize;
        let mut seated: Vec<&str> = names.to_vec();
        let table: Vec<(&str, i64)> = (0..count)
            .map(|_| {
                let i = dice.roll(seated.len() as u64) as usize;
                (seated.remove(i), dice.roll(5) as i64)
            })
            .collect();
        let at = format!(
            "2025-{:02}-{:02}T{:02}:00:00Z",
            1 + dice.roll(12),
            1 + dice.roll(28),
            dice.roll(24)
        );
        typed_in(&app, &club, game, &at, &table).await;
    }

    for (game, _, _) in TABLES {
        // When OpenSkill rates the same games, with the ranks their scores give, in play order
        let games = played(&app, &club, game).await;
        let file = serde_json::to_vec(&games).unwrap();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/openskill.sh");
        let mut child = match std::process::Command::new(script)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("scripts/openskill.sh: {e}"),
        };
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&file).unwrap();
        let out = child.wait_with_output().unwrap();
        if !out.status.success() {
            crate::helpers::skip_outside_ci(
                "openskill (PyPI)",
                "openskill could not be installed (no Python venv or PyPI)",
            );
            return;
        }
        let reference: std::collections::BTreeMap<String, (f64, f64)> =
            serde_json::from_slice(&out.stdout).expect("openskill's ratings");

        // Then every player's μ and σ are OpenSkill's, within 1e-9
        let ours = served(&app, &club, game).await;
        assert_eq!(ours.len(), reference.len(), "{game}");
        for (player, mu, sigma) in &ours {
            let (want_mu, want_sigma) = reference[player];
            assert!(
                (mu - want_mu).abs() < 1e-9 && (sigma - want_sigma).abs() < 1e-9,
                "{game}, {player}: {mu}, {sigma} against OpenSkill's {want_mu}, {want_sigma}"
            );
        }
    }
}

/// The club's finished games of `game` in play order, each as `[[player id, rank], …]` in seat
/// order, the ranks its score gives.
async fn played(app: &TestApp, club: &TestClub, game: &str) -> Vec<Vec<(String, i64)>> {
    let mut games: Vec<(String, String)> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/games?game={game}&status=finished&limit=200&cursor={c}"),
            None => format!("/v1/games?game={game}&status=finished&limit=200"),
        };
        let page = app.get(&path, Some(&club.token)).await;
        assert_eq!(page.status, 200, "{}", page.body);
        for g in page.body["games"].as_array().unwrap() {
            games.push((
                g["started_at"].as_str().unwrap().to_owned(),
                g["id"].as_str().unwrap().to_owned(),
            ));
        }
        cursor = page.body["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    games.sort();
    let mut tables = Vec::with_capacity(games.len());
    for (_, id) in &games {
        let summary = app.get(&format!("/v1/games/{id}"), Some(&club.token)).await;
        let score = app.score(club, id).await;
        tables.push(
            summary.body["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|seat| {
                    let name = seat["name"].as_str().unwrap();
                    let rank = crate::helpers::player(&score, name)["rank"]
                        .as_i64()
                        .unwrap();
                    (seat["player_id"].as_str().unwrap().to_owned(), rank)
                })
                .collect(),
        );
    }
    tables
}
