//! `Accept-Language`: problems and score explanations in English, French or Persian, the
//! language named in `Content-Language`; the machine fields never change with the language.

use serde_json::{Value, json};

use crate::helpers::{Reply, TestApp, TestClub, event, player};
use crate::live::EventStream;
use crate::mint_condition::round_1;
use crate::on_both_backends;

on_both_backends!(
    a_rule_refusal_is_said_in_french_or_persian_and_its_machine_fields_stay,
    a_score_breakdown_is_said_in_french_and_in_persian_with_the_same_points,
    the_language_with_the_highest_quality_wins_and_an_unknown_one_answers_in_english,
    the_http_layers_own_refusals_are_said_in_the_language_asked_for,
    a_score_in_another_language_has_its_own_entity_tag,
    a_stream_opened_with_lang_fr_carries_french_breakdowns_and_the_same_machine_fields,
);

async fn get_in(app: &TestApp, path: &str, token: Option<&str>, language: &str) -> Reply {
    let mut request = app
        .client
        .get(app.url(path))
        .header("accept-language", language);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    Reply::read(request.send().await.expect("the server answers")).await
}

async fn post_in(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    body: &Value,
    language: &str,
) -> Reply {
    let mut request = app
        .client
        .post(app.url(path))
        .header("accept-language", language)
        .json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    Reply::read(request.send().await.expect("the server answers")).await
}

fn content_language(reply: &Reply) -> &str {
    reply
        .headers
        .get("content-language")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// A Mint Condition game of Ann, Bo and Cy (9 cards each a round).
async fn three_player_game(app: &TestApp, club: &TestClub) -> String {
    app.new_game(
        club,
        json!({"game": "mint-condition",
               "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]}),
    )
    .await
}

/// Round 1 with one of Ann's nine cards left out.
fn round_1_ann_short() -> Value {
    let mut round = round_1();
    round["collections"]["Ann"]
        .as_array_mut()
        .expect("Ann's cards")
        .pop();
    round
}

async fn a_rule_refusal_is_said_in_french_or_persian_and_its_machine_fields_stay(app: TestApp) {
    let club = app.new_club().await;
    let game = three_player_game(&app, &club).await;
    let path = format!("/v1/games/{game}/events");
    let body = json!({"events": [event("round_collected", round_1_ann_short())]});

    let english = post_in(&app, &path, Some(&club.token), &body, "en").await;
    let french = post_in(&app, &path, Some(&club.token), &body, "fr").await;
    let persian = post_in(&app, &path, Some(&club.token), &body, "fa").await;

    let english = english.problem(422).clone();
    assert_eq!(
        english["detail"],
        "Ann collected 8 cards, but with 3 players everyone collects 9 per round \
         (switch off strict_counts to allow other sizes)"
    );
    assert_eq!(content_language(&french), "fr");
    let french_problem = french.problem(422);
    assert_eq!(
        french_problem["detail"],
        "Ann a collectionné 8 cartes, mais à 3 joueurs chacun en collectionne 9 par manche \
         (désactivez l'option strict_counts pour permettre d'autres tailles)"
    );
    assert_eq!(
        french_problem["title"],
        "Un événement enfreint une règle du jeu"
    );
    assert_eq!(content_language(&persian), "fa");
    let persian_problem = persian.problem(422);
    assert_eq!(
        persian_problem["detail"],
        "Ann 8 کارت جمع کرده است، اما با 3 بازیکن هر کس در هر دور 9 کارت جمع می‌کند \
         (برای اندازه‌های دیگر گزینهٔ strict_counts را خاموش کنید)"
    );
    for problem in [french_problem, persian_problem] {
        for field in ["type", "status", "pointer", "event_index"] {
            assert_eq!(problem[field], english[field], "{field}");
        }
    }
    assert_eq!(english["pointer"], "/events/0/data/collections/Ann");
    assert_eq!(app.version(&club, &game).await, 1, "nothing was stored");
}

async fn a_stream_opened_with_lang_fr_carries_french_breakdowns_and_the_same_machine_fields(
    app: TestApp,
) {
    let club = app.new_club().await;
    let game = three_player_game(&app, &club).await;
    let path = format!("/v1/games/{game}/stream");
    let mut english = EventStream::open(&app, &path, &club.token, None).await;
    let mut french = EventStream::open(&app, &format!("{path}?lang=fr"), &club.token, None).await;
    assert_eq!(english.language, "en");
    assert_eq!(french.language, "fr");
    let (english_snapshot, french_snapshot) = (english.expect().await, french.expect().await);
    assert_eq!(french_snapshot.event, "snapshot");
    assert_eq!(french_snapshot.data["game"], english_snapshot.data["game"]);

    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let (english_append, french_append) = (english.expect().await, french.expect().await);

    assert_eq!(french_append.event, "appended");
    assert_eq!(french_append.id, english_append.id);
    let (english_data, french_data) = (&english_append.data, &french_append.data);
    assert_eq!(french_data["version"], 2);
    assert_eq!(french_data["events"], english_data["events"]);
    let (english_score, french_score) = (&english_data["score"], &french_data["score"]);
    assert_eq!(
        line(french_score, "Ann", "Animal Kingdom ×3")["detail"],
        "1 série(s) complète(s) de 3 × 6"
    );
    assert_eq!(
        line(french_score, "Ann", "Be Careful! ×2")["detail"],
        "2, moins que le plus (3) → 3"
    );
    assert_eq!(
        line(english_score, "Ann", "Be Careful! ×2")["detail"],
        "2, fewer than the most (3) → 3"
    );
    assert_eq!(
        crate::helpers::totals(french_score),
        crate::helpers::totals(english_score)
    );
    assert_eq!(
        crate::helpers::ranks(french_score),
        crate::helpers::ranks(english_score)
    );
    crate::helpers::assert_every_point_is_explained(french_score);

    // `?lang=` wins over Accept-Language; a language we do not speak is refused by name.
    let persian = app
        .client
        .get(app.url(&format!("{path}?lang=fa")))
        .bearer_auth(&club.token)
        .header("accept-language", "fr")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(persian.headers()["content-language"], "fa");
    drop(persian);
    let german = get_in(&app, &format!("{path}?lang=de"), Some(&club.token), "fr").await;
    let problem = german.problem(400);
    assert_eq!(problem["parameter"], "lang");
    assert_eq!(
        problem["detail"],
        "\"lang\" doit valoir en, fr ou fa ; reçu \"de\""
    );
}

/// A line of a player's first round by its label.
fn line<'a>(score: &'a Value, name: &str, label: &str) -> &'a Value {
    player(score, name)["rounds"][0]["breakdown"]
        .as_array()
        .expect("breakdown")
        .iter()
        .find(|l| l["label"] == label)
        .unwrap_or_else(|| panic!("no line {label:?} in {score}"))
}

async fn a_score_breakdown_is_said_in_french_and_in_persian_with_the_same_points(app: TestApp) {
    let club = app.new_club().await;
    let game = three_player_game(&app, &club).await;
    let reply = app
        .append(
            &club,
            &game,
            Some(1),
            vec![event("round_collected", round_1())],
        )
        .await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let path = format!("/v1/games/{game}/score");

    let english = get_in(&app, &path, Some(&club.token), "en").await;
    let french = get_in(&app, &path, Some(&club.token), "fr-FR").await;
    let persian = get_in(&app, &path, Some(&club.token), "fa-IR").await;

    assert_eq!(content_language(&english), "en");
    assert_eq!(content_language(&french), "fr");
    assert_eq!(content_language(&persian), "fa");
    let (english, french, persian) = (english.body, french.body, persian.body);
    assert_eq!(
        line(&english, "Ann", "Animal Kingdom ×3")["detail"],
        "1 complete set(s) of 3 × 6"
    );
    assert_eq!(
        line(&french, "Ann", "Animal Kingdom ×3")["detail"],
        "1 série(s) complète(s) de 3 × 6"
    );
    assert_eq!(
        line(&persian, "Ann", "Animal Kingdom ×3")["detail"],
        "1 دستهٔ کامل 3تایی × 6"
    );
    assert_eq!(
        line(&french, "Ann", "Be Careful! ×2")["detail"],
        "2, moins que le plus (3) → 3"
    );
    assert_eq!(
        line(&persian, "Ann", "Be Careful! ×2")["detail"],
        "2، کمتر از بیشترین (3) ← 3"
    );
    assert_eq!(
        line(&french, "Cy", "Be Careful! ×0")["detail"],
        "aucune, alors que d'autres en ont → 5"
    );
    let note = |score: &Value| {
        score["house_rule_points"]
            .as_array()
            .expect("house-rule points")
            .iter()
            .find(|h| h["option"] == "memories_over_three")
            .expect("memories_over_three")["note"]
            .clone()
    };
    assert_eq!(note(&french), "dégâts Memories pour 4 ou plus");
    assert_eq!(note(&persian), "آسیب Memories برای 4 یا بیشتر");
    // Names, numbers, ranks, options and the shape are the same in every language.
    for other in [&french, &persian] {
        assert_eq!(
            crate::helpers::totals(other),
            crate::helpers::totals(&english)
        );
        assert_eq!(
            crate::helpers::ranks(other),
            crate::helpers::ranks(&english)
        );
        for name in ["Ann", "Bo", "Cy"] {
            let points = |score: &Value| -> Vec<(Value, Value)> {
                player(score, name)["rounds"][0]["breakdown"]
                    .as_array()
                    .expect("breakdown")
                    .iter()
                    .map(|l| (l["points"].clone(), l["label"].clone()))
                    .collect()
            };
            let (mine, theirs) = (points(other), points(&english));
            assert_eq!(mine.len(), theirs.len());
            for ((a, _), (b, _)) in mine.iter().zip(&theirs) {
                assert_eq!(a, b, "{name}");
            }
        }
        assert_eq!(
            other["house_rule_points"].as_array().map(Vec::len),
            english["house_rule_points"].as_array().map(Vec::len)
        );
    }
    crate::helpers::assert_every_point_is_explained(&french);
}

async fn the_language_with_the_highest_quality_wins_and_an_unknown_one_answers_in_english(
    app: TestApp,
) {
    let asked = [
        ("en;q=0.2, fa;q=0.9, fr;q=0.5", "fa", "پیدا نشد"),
        ("de-DE, fr-CA;q=0.8, en;q=0.7", "fr", "Introuvable"),
        ("de, ja", "en", "Not found"),
        ("fr;q=0", "en", "Not found"),
        ("*", "en", "Not found"),
    ];
    for (header, language, title) in asked {
        let reply = get_in(&app, "/v1/no-such-thing", None, header).await;

        let problem = reply.problem(404);
        assert_eq!(problem["title"], title, "{header}");
        assert_eq!(content_language(&reply), language, "{header}");
    }
    let plain = app.get("/healthz", None).await;
    assert_eq!(content_language(&plain), "en", "no header: English");
}

async fn the_http_layers_own_refusals_are_said_in_the_language_asked_for(app: TestApp) {
    let club = app.new_club().await;

    let unknown_field = post_in(&app, "/v1/clubs", None, &json!({"nam": "x"}), "fr").await;
    let no_token = get_in(&app, "/v1/games", None, "fa").await;
    let bad_json = app
        .client
        .post(app.url("/v1/games"))
        .bearer_auth(&club.token)
        .header("accept-language", "fr")
        .header("content-type", "application/json")
        .body("{\"game\":")
        .send()
        .await
        .expect("the server answers");
    let bad_json = Reply::read(bad_json).await;
    let unknown_game = post_in(
        &app,
        "/v1/games",
        Some(&club.token),
        &json!({"game": "chess", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        "fr",
    )
    .await;

    let problem = unknown_field.problem(422);
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("\"nam\" n'est pas un champ ici ; les champs sont")),
        "{problem}"
    );
    assert_eq!(problem["pointer"], "/nam");
    let problem = no_token.problem(401);
    assert_eq!(problem["detail"], "توکن bearer نیامده یا نامعتبر است");
    assert_eq!(problem["title"], "احراز هویت لازم است");
    assert!(no_token.headers.contains_key("www-authenticate"));
    let problem = bad_json.problem(400);
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("le corps n'est pas du JSON valide")),
        "{problem}"
    );
    let problem = unknown_game.problem(422);
    assert_eq!(problem["title"], "La requête est invalide");
    assert_eq!(content_language(&unknown_game), "fr");
}

async fn a_score_in_another_language_has_its_own_entity_tag(app: TestApp) {
    let club = app.new_club().await;
    let game = three_player_game(&app, &club).await;
    let path = format!("/v1/games/{game}/score");
    let english = get_in(&app, &path, Some(&club.token), "en").await;
    let tag = english.headers.get("etag").expect("an ETag").clone();

    let french = app
        .client
        .get(app.url(&path))
        .bearer_auth(&club.token)
        .header("accept-language", "fr")
        .header("if-none-match", tag.clone())
        .send()
        .await
        .expect("the server answers");

    assert_eq!(
        french.status(),
        200,
        "the English tag is not the French body's"
    );
    let french_tag = french.headers().get("etag").expect("an ETag").clone();
    assert_ne!(french_tag, tag);
    assert!(
        french
            .headers()
            .get_all("vary")
            .iter()
            .any(|v| v.to_str().is_ok_and(|v| v.contains("Accept-Language")))
    );
    let again = app
        .client
        .get(app.url(&path))
        .bearer_auth(&club.token)
        .header("accept-language", "fr")
        .header("if-none-match", french_tag)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(again.status(), 304);
}
