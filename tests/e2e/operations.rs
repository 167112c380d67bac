//! Health, readiness, the OpenAPI document and Swagger UI.

use crate::helpers::{TestApp, event};
use crate::on_both_backends;
use sqlx::Connection;

on_both_backends!(
    the_service_reports_health_and_readiness,
    the_openapi_document_and_swagger_ui_are_served,
    metrics_count_requests_by_route_and_reveal_no_club_data,
    made_up_methods_are_counted_as_one_label_and_grow_nothing,
    docs_without_a_slash_redirects_to_swagger_ui,
    swagger_ui_is_shown_in_no_other_sites_frame_and_runs_only_its_own_files,
    connections_the_database_cut_while_idle_are_replaced_before_a_request_uses_them,
    a_game_is_found_by_its_primary_key_however_little_the_planner_knows,
    statements_given_arrays_are_planned_once_for_any_length,
    a_new_games_players_are_found_by_their_whole_key_however_little_the_planner_knows
);

async fn the_service_reports_health_and_readiness(app: TestApp) {
    let health = app.get("/healthz", None).await;
    let ready = app.get("/readyz", None).await;

    assert_eq!(health.status, 200);
    assert_eq!(ready.status, 200);
    let backend = match app.backend {
        crate::helpers::Backend::Sqlite => "sqlite",
        crate::helpers::Backend::Postgres => "postgres",
    };
    assert_eq!(ready.body["database"], backend);
}

async fn the_openapi_document_and_swagger_ui_are_served(app: TestApp) {
    let doc = app.get("/openapi.json", None).await;
    let ui = app.client.get(app.url("/docs/")).send().await.unwrap();

    assert_eq!(doc.status, 200);
    assert_eq!(doc.body["openapi"], "3.1.0");
    assert!(doc.body["paths"]["/v1/games/{id}/events"]["post"].is_object());
    assert_eq!(ui.status(), 200);
    assert!(
        ui.text().await.unwrap().contains("swagger"),
        "Swagger UI page"
    );
}

async fn metrics_count_requests_by_route_and_reveal_no_club_data(app: TestApp) {
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            serde_json::json!({"game": "mint-julep", "players": [{"name": "Zelda"}, {"name": "Bo"}]}),
        )
        .await;
    let bets = ["Zelda", "Bo"].map(|player| {
        event(
            "bet_placed",
            serde_json::json!({"round": 1, "player": player, "horse": "you-got-me"}),
        )
    });
    assert_eq!(
        app.append(&club, &game, Some(1), bets.to_vec())
            .await
            .status,
        201
    );
    for _ in 0..2 {
        assert_eq!(
            app.get(&format!("/v1/games/{game}"), Some(&club.token))
                .await
                .status,
            200
        );
    }
    assert_eq!(
        app.get("/v1/games/not-a-uuid", Some(&club.token))
            .await
            .status,
        400
    );

    let (status, content_type, text) = {
        let reply = app.client.get(app.url("/metrics")).send().await.unwrap();
        let status = reply.status().as_u16();
        let content_type = reply.headers()["content-type"].to_str().unwrap().to_owned();
        (status, content_type, reply.text().await.unwrap())
    };

    assert_eq!(status, 200);
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    for line in [
        "tabletally_http_requests_total{method=\"POST\",route=\"/v1/clubs\",status=\"201\"} 1",
        "tabletally_http_requests_total{method=\"POST\",route=\"/v1/games\",status=\"201\"} 1",
        "tabletally_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"200\"} 2",
        "tabletally_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"400\"} 1",
        "tabletally_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/games/{id}\"} 3",
        "tabletally_appends_total 1",
        "tabletally_events_appended_total 2",
        "tabletally_games_created_total 1",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    for secret in [club.id.as_str(), game.as_str(), "Zelda", "not-a-uuid"] {
        assert!(!text.contains(secret), "{secret} is in the metrics");
    }
}

async fn made_up_methods_are_counted_as_one_label_and_grow_nothing(app: TestApp) {
    // Given requests with methods nobody defined, each different and long, on routes and off
    let client = reqwest::Client::new();
    for i in 0..20 {
        let method =
            reqwest::Method::from_bytes(format!("MADEUP{i}{}", "X".repeat(2_000)).as_bytes())
                .unwrap();
        let path = if i % 2 == 0 { "/v1/games" } else { "/nowhere" };
        let reply = client.request(method, app.url(path)).send().await.unwrap();
        assert!(reply.status().is_client_error(), "{}", reply.status());
    }

    // Then the metrics count them under one label, `other`, with none of their names
    let text = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !text.contains("MADEUP"),
        "a made-up method is a label:\n{text}"
    );
    let other: u64 = text
        .lines()
        .filter(|l| l.starts_with("tabletally_http_requests_total{method=\"other\""))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(other, 20, "{text}");
    assert!(
        text.len() < 64 * 1024,
        "the metrics grew to {} bytes",
        text.len()
    );
}

async fn swagger_ui_is_shown_in_no_other_sites_frame_and_runs_only_its_own_files(app: TestApp) {
    for path in ["/docs/", "/docs/swagger-ui-bundle.js"] {
        let reply = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(reply.status(), 200, "{path}");
        let csp = reply.headers()["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("script-src 'self';"), "{path}: {csp}");
        assert_eq!(reply.headers()["x-frame-options"], "DENY", "{path}");
        assert_eq!(
            reply.headers()["x-content-type-options"],
            "nosniff",
            "{path}"
        );
    }
}

async fn docs_without_a_slash_redirects_to_swagger_ui(app: TestApp) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    let reply = client.get(app.url("/docs")).send().await.unwrap();

    assert_eq!(reply.status(), 308);
    assert_eq!(reply.headers()["location"], "/docs/");
}

/// The addresses the pad hands out for links and QR codes (`GET /pad/links.json`).
async fn links_of(
    configure: impl FnOnce(&mut tabletally_api::config::Config),
) -> serde_json::Value {
    let app = crate::helpers::spawn_app_with(crate::helpers::Backend::Sqlite, configure)
        .await
        .expect("SQLite always runs");
    let links = app.get("/pad/links.json", None).await;
    assert_eq!(links.status, 200);
    links.body
}

#[tokio::test]
async fn a_server_on_one_address_offers_no_other_for_links() {
    let links = links_of(|_| {}).await;
    assert_eq!(links, serde_json::json!({"public_url": null, "lan": []}));
}

#[tokio::test]
async fn a_public_url_is_the_one_address_for_links() {
    let links = links_of(|c| c.public_url = Some("https://pad.example/".into())).await;
    assert_eq!(
        links,
        serde_json::json!({"public_url": "https://pad.example", "lan": []})
    );
}

#[tokio::test]
async fn a_server_on_all_interfaces_offers_its_lan_addresses_with_its_port() {
    let app = crate::helpers::spawn_app_with(crate::helpers::Backend::Sqlite, |c| {
        c.addr = "0.0.0.0:0".into()
    })
    .await
    .expect("SQLite always runs");
    let port = app.address.rsplit(':').next().unwrap().to_owned();
    let links = app.get("/pad/links.json", None).await;
    // This machine's address towards its default route (what a phone on its network reaches).
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    socket.connect("192.0.2.1:9").unwrap();
    let ip = socket.local_addr().unwrap().ip();
    assert_eq!(
        links.body,
        serde_json::json!({"public_url": null, "lan": [format!("http://{ip}:{port}")]})
    );
}

#[tokio::test]
async fn a_public_url_that_is_no_web_address_stops_the_server_with_the_reason() {
    let file = std::env::temp_dir().join(format!("tabletally-test-{}.db", uuid::Uuid::new_v4()));
    let config = tabletally_api::config::Config {
        addr: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", file.display()),
        public_url: Some("pad.example/game".into()),
        ..Default::default()
    };
    let error = match tabletally_api::startup::Application::build(&config).await {
        Ok(_) => panic!("the server started with a public URL without a scheme"),
        Err(e) => e.to_string(),
    };
    for suffix in ["", "-wal", "-shm", ".server-lock"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    assert_eq!(
        error,
        "TABLETALLY_PUBLIC_URL \"pad.example/game\" is not an address phones can open: give it \
         as http://host[:port] or https://host[:port], with no path"
    );
}

async fn connections_the_database_cut_while_idle_are_replaced_before_a_request_uses_them(
    app: TestApp,
) {
    if app.backend == crate::helpers::Backend::Sqlite {
        return; // a local file's connections cannot be cut
    }
    // Arrange: the pool holds connections that have served requests.
    let club = app.new_club().await;
    let game = app
        .new_game(
            &club,
            serde_json::json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}),
        )
        .await;
    assert_eq!(app.get("/v1/games", Some(&club.token)).await.status, 200);
    // A plain append: its connection is kept for the next one, out of the pool.
    let rounds = crate::statistics::g1_rounds();
    let round = |n: usize| {
        let (ann, bo) = rounds[n - 1].clone();
        vec![event(
            "round_collected",
            serde_json::json!({"round": n, "collections": {"Ann": ann, "Bo": bo}}),
        )]
    };
    let first = app.append(&club, &game, Some(1), round(1)).await;
    assert_eq!(first.status, 201, "{}", first.body);

    // Act: the database cuts every connection of the server's pool (a restart, an idle
    // timeout), and the server is asked again once they have sat idle a while.
    let mut admin = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    let cut: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid() \
         AND application_name <> 'tabletally-listen'",
    )
    .fetch_all(&mut admin)
    .await
    .expect("terminate");
    tokio::time::sleep(std::time::Duration::from_millis(1_200)).await;
    let games = app.get("/v1/games", Some(&club.token)).await;
    let appended = app.append(&club, &game, Some(2), round(2)).await;
    let abandoned = app
        .append(
            &club,
            &game,
            Some(3),
            vec![event(
                "abandon",
                serde_json::json!({"reason": "the pub closed"}),
            )],
        )
        .await;

    // Assert: connections were cut, and no request noticed (each connection was asked whether
    // it still answers before it was lent, and replaced; the kept one was handed back).
    assert!(!cut.is_empty());
    assert_eq!(games.status, 200, "{}", games.body);
    assert_eq!(appended.status, 201, "{}", appended.body);
    assert_eq!(abandoned.status, 201, "{}", abandoned.body);
}

async fn a_game_is_found_by_its_primary_key_however_little_the_planner_knows(app: TestApp) {
    if app.backend == crate::helpers::Backend::Sqlite {
        return; // SQLite's planner takes the unique id's equality first, with or without statistics
    }
    // Arrange: a fresh database, its games table empty and never analysed, as when a server's
    // connections first plan their statements; and plans made for any values (generic), which
    // PostgreSQL keeps for a connection's life.
    let mut db = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    sqlx::raw_sql("SET plan_cache_mode = force_generic_plan")
        .execute(&mut db)
        .await
        .expect("generic plans");
    let statements = [
        (
            "a plain append",
            tabletally_api::store::PLAIN_APPEND,
            "(2, now(), 'g', 'c', 1, 1, '{2}', '{e}', '{t}', '{\"{}\"}', '{null}', false)",
        ),
        (
            "plain appends",
            tabletally_api::store::PLAIN_APPENDS,
            "('{g}', '{c}', '{1}', '{2}', ARRAY[now()], false, 1, '{g}', '{2}', '{e}', '{t}', \
             '{\"{}\"}', '{null}', ARRAY[now()])",
        ),
        (
            "a game's row",
            tabletally_api::store::GAME_ROW,
            "('g', 'c')",
        ),
        (
            "a stored version",
            tabletally_api::store::STORED_VERSION,
            "('g', 'c')",
        ),
        (
            "gathered versions",
            tabletally_api::store::VERSIONS_READ,
            "('{g}')",
        ),
    ];
    for (what, statement, values) in statements {
        // Act
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "PREPARE checked AS {statement}"
        )))
        .execute(&mut db)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let plan: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "EXPLAIN EXECUTE checked {values}"
        )))
        .fetch_all(&mut db)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        sqlx::raw_sql("DEALLOCATE checked")
            .execute(&mut db)
            .await
            .expect("deallocate");

        // Assert: the primary key finds the row, not an index by club walked row by row, nor the
        // whole table read.
        let plan: Vec<String> = plan.into_iter().map(|(line,)| line).collect();
        let plan = plan.join("\n");
        assert!(
            plan.contains("Index Scan using games_pkey on games")
                && !plan.contains("games_club")
                && !plan.contains("Seq Scan on games"),
            "{what}:\n{plan}"
        );
    }
}

/// The literal values for a statement given arrays of `n` items each.
type ValuesFor = fn(usize) -> String;

async fn statements_given_arrays_are_planned_once_for_any_length(app: TestApp) {
    if app.backend == crate::helpers::Backend::Sqlite {
        return; // only PostgreSQL's statements take arrays
    }
    // Arrange: a connection of its own, as a server's, keeping its prepared statements.
    let mut db = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    let statements: [(&str, ValuesFor); 2] = [
        (tabletally_api::store::PLAIN_APPENDS, |n: usize| {
            let list = |value: &str| format!("'{{{}}}'", vec![value; n].join(","));
            format!(
                "({g}, {c}, {at}, {version}, ARRAY[{now}]::timestamptz[], false, 1, {g}, {version}, \
                     {e}, {t}, {data}, {null}, ARRAY[{now}]::timestamptz[])",
                g = list("g"),
                c = list("c"),
                at = list("1"),
                version = list("2"),
                e = list("e"),
                t = list("t"),
                data = list("x"),
                null = list("null"),
                now = vec!["now()"; n].join(","),
            )
        }),
        (tabletally_api::store::VERSIONS_READ, |n: usize| {
            format!("('{{{}}}')", vec!["g"; n].join(","))
        }),
    ];
    for (statement, values) in statements {
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "PREPARE checked AS {statement}"
        )))
        .execute(&mut db)
        .await
        .expect("prepare");

        // Act: executed with arrays of 1 to 12 elements.
        for n in 1..=12 {
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "EXECUTE checked {}",
                values(n)
            )))
            .execute(&mut db)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        let (generic, custom): (i64, i64) = sqlx::query_as(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'checked'",
        )
        .fetch_one(&mut db)
        .await
        .expect("the plans");
        sqlx::raw_sql("DEALLOCATE checked")
            .execute(&mut db)
            .await
            .expect("deallocate");

        // Assert: past PostgreSQL's first five tries, one plan for any length, none made anew.
        assert_eq!((generic, custom), (7, 5), "{statement}");
    }
}

async fn a_new_games_players_are_found_by_their_whole_key_however_little_the_planner_knows(
    app: TestApp,
) {
    if app.backend == crate::helpers::Backend::Sqlite {
        return; // SQLite's planner takes a unique key's equality first, with or without statistics
    }
    // Arrange: a club of 1,200 players, never analysed (a new database, or a club that grew
    // faster than autovacuum looked), and plans made for any values, kept for a connection's life.
    let mut db = sqlx::PgConnection::connect(&app.database_url)
        .await
        .expect("connect");
    sqlx::raw_sql(
        "INSERT INTO clubs (id, name, token_hash, created_at) VALUES ('c', 'Club', '', now()); \
         INSERT INTO players (id, club_id, name, name_key, created_at) \
         SELECT 'p' || i, 'c', 'Player ' || i, 'player ' || i, now() FROM generate_series(1, 1200) i; \
         SET plan_cache_mode = force_generic_plan",
    )
    .execute(&mut db)
    .await
    .expect("arrange");
    let statement = tabletally_api::store::seat_players_read(2, 1);

    // Act
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("PREPARE read AS {statement}")))
        .execute(&mut db)
        .await
        .expect("prepare");
    let plan: Vec<(String,)> =
        sqlx::query_as("EXPLAIN EXECUTE read ('c', 'player 7', 'player 9', 'p11')")
            .fetch_all(&mut db)
            .await
            .expect("explain");
    let found: Vec<(String, String)> =
        sqlx::query_as("EXECUTE read ('c', 'player 7', 'player 9', 'p11')")
            .fetch_all(&mut db)
            .await
            .expect("execute");

    // Assert: each name is one lookup of the club's unique key by both its columns, the known
    // player one of the primary key; no player of the club is read and filtered out.
    let plan = plan
        .into_iter()
        .map(|(line,)| line)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        plan.matches("Index Cond: ((club_id = $1) AND (name_key = $")
            .count(),
        2,
        "{plan}"
    );
    assert!(plan.contains("players_pkey"), "{plan}");
    assert!(!plan.contains("Filter: (name_key"), "{plan}");
    let mut found: Vec<String> = found.into_iter().map(|(id, _)| id).collect();
    found.sort();
    assert_eq!(found, ["p11", "p7", "p9"]);
}
