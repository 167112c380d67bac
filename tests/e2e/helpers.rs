//! `spawn_app`: the real server on port 0 with a fresh database per test, on SQLite and on
//! PostgreSQL. PostgreSQL runs when `TABLETALLY_TEST_POSTGRES_URL` is set (e.g.
//! `postgres://postgres@127.0.0.1:5432/postgres`); in CI (`CI=true`) it must be set.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tabletally_api::config::Config;
use tabletally_api::startup::{Application, Stopper};

#[path = "../../api/tests/support/test_database.rs"]
mod test_database;

pub use test_database::Backend;
use test_database::TestDatabase;
pub(crate) use test_database::skip_outside_ci;

/// Runs each named scenario `async fn name(app: TestApp)` as two tests: `name::on_sqlite` and
/// `name::on_postgres`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn on_sqlite() {
                let app = $crate::helpers::spawn_app($crate::helpers::Backend::Sqlite).await.expect("sqlite always runs");
                super::$name(app).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn on_postgres() {
                if let Some(app) = $crate::helpers::spawn_app($crate::helpers::Backend::Postgres).await {
                    super::$name(app).await;
                }
            }
        }
    )*};
}

pub struct TestApp {
    pub address: String,
    /// The database this server uses (to open a second connection, e.g. for a rebuild).
    pub database_url: String,
    pub backend: Backend,
    pub client: reqwest::Client,
    /// How this server was started, and what stops it (`stop_server`, `start_server_again`).
    config: Config,
    stopper: Stopper,
    _database: Option<TestDatabase>,
}

/// A write under way on a connection of its own, its transaction left open (on SQLite it holds
/// the database's write lock) until [`HeldWrite::commit`].
pub enum HeldWrite {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl HeldWrite {
    /// Opens a connection to the server's database and runs `sql` in a transaction it leaves open.
    pub async fn begin(app: &TestApp, sql: &str) -> Self {
        use sqlx::Connection;
        match app.backend {
            Backend::Sqlite => {
                let mut db = sqlx::SqliteConnection::connect(&app.database_url)
                    .await
                    .unwrap();
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!("BEGIN IMMEDIATE; {sql}")))
                    .execute(&mut db)
                    .await
                    .unwrap();
                Self::Sqlite(db)
            }
            Backend::Postgres => {
                let mut db = sqlx::PgConnection::connect(&app.database_url)
                    .await
                    .unwrap();
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!("BEGIN; {sql}")))
                    .execute(&mut db)
                    .await
                    .unwrap();
                Self::Postgres(db)
            }
        }
    }

    pub async fn commit(self) {
        match self {
            Self::Sqlite(mut db) => sqlx::raw_sql("COMMIT").execute(&mut db).await.map(drop),
            Self::Postgres(mut db) => sqlx::raw_sql("COMMIT").execute(&mut db).await.map(drop),
        }
        .unwrap();
    }
}

/// A club and its token.
pub struct TestClub {
    pub id: String,
    pub token: String,
}

/// Starts the server on a fresh database; `None` when PostgreSQL is not configured (outside CI).
pub async fn spawn_app(backend: Backend) -> Option<TestApp> {
    spawn_app_with(backend, |_| {}).await
}

/// [`spawn_app`] with some configuration changed.
pub async fn spawn_app_with(
    backend: Backend,
    configure: impl FnOnce(&mut Config),
) -> Option<TestApp> {
    let (database, database_url) = TestDatabase::fresh(backend, "tabletally_test").await?;
    let mut config = Config {
        addr: "127.0.0.1:0".into(),
        database_url: database_url.clone(),
        workers: Some(2),
        ..Config::default()
    };
    configure(&mut config);
    let (address, stopper) = start(&config).await;
    Some(TestApp {
        address,
        database_url,
        backend,
        client: test_client(),
        config,
        stopper,
        _database: Some(database),
    })
}

/// The tests' HTTP client. It drops a connection idle for a second, well before the server's
/// keep-alive (5 s) closes it: a request sent on a connection the server is closing at that
/// moment fails with no answer (a test that waits on the browser between two reads met it).
pub fn test_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(1))
        .build()
        .expect("an HTTP client")
}

async fn start(config: &Config) -> (String, Stopper) {
    let app = Application::build(config).await.expect("the server starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    let stopper = app.stopper();
    tokio::spawn(app.run_until_stopped());
    (address, stopper)
}

impl TestApp {
    /// A second server on the same database (the first one owns and drops it).
    pub async fn second_server(&self) -> TestApp {
        let config = Config {
            addr: "127.0.0.1:0".into(),
            database_url: self.database_url.clone(),
            workers: Some(2),
            ..Config::default()
        };
        let (address, stopper) = start(&config).await;
        TestApp {
            address,
            database_url: self.database_url.clone(),
            backend: self.backend,
            client: test_client(),
            config,
            stopper,
            _database: None,
        }
    }

    /// Takes the server away (its database stays), as a dead spot does for the phones: the
    /// port refuses connections until [`TestApp::start_server_again`].
    pub async fn stop_server(&self) {
        self.stopper.stop().await;
    }

    /// Starts the server again on the same address and database.
    pub async fn start_server_again(&mut self) {
        let port = self.address.rsplit(':').next().expect("a port");
        self.config.addr = format!("127.0.0.1:{port}");
        let (address, stopper) = start(&self.config).await;
        assert_eq!(address, self.address, "the same address");
        self.stopper = stopper;
    }
}

/// A response: status, content type and JSON body (`Value::Null` when there is none).
pub struct Reply {
    pub status: StatusCode,
    pub content_type: String,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Reply {
    pub async fn read(response: reqwest::Response) -> Reply {
        let status = response.status();
        let headers = response.headers().clone();
        let content_type = headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = response.text().await.expect("a body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            content_type,
            headers,
            body,
        }
    }

    /// Asserts a problem+json error with this status, and returns its body.
    pub fn problem(&self, status: u16) -> &Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        assert_eq!(
            self.content_type, "application/problem+json",
            "body: {}",
            self.body
        );
        assert_eq!(self.body["status"], status);
        assert!(
            self.body["title"].is_string()
                && self.body["detail"].is_string()
                && self.body["type"].is_string()
        );
        &self.body
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        let mut request = self.client.get(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Reply::read(request.send().await.expect("the server answers")).await
    }

    /// GETs a body that is not one JSON value (an NDJSON export): `(status, content type, text)`.
    pub async fn get_text(&self, path: &str, token: &str) -> (u16, String, String) {
        let reply = self
            .client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("the server answers");
        let status = reply.status().as_u16();
        let content_type = reply
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        (
            status,
            content_type,
            reply.text().await.expect("a text body"),
        )
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        let mut request = self.client.post(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Reply::read(request.send().await.expect("the server answers")).await
    }

    pub async fn patch(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        let mut request = self.client.patch(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Reply::read(request.send().await.expect("the server answers")).await
    }

    /// POSTs raw bytes with a content type.
    pub async fn post_raw(
        &self,
        path: &str,
        token: Option<&str>,
        content_type: &str,
        body: Vec<u8>,
    ) -> Reply {
        let mut request = self
            .client
            .post(self.url(path))
            .header("content-type", content_type)
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Reply::read(request.send().await.expect("the server answers")).await
    }

    pub async fn new_club(&self) -> TestClub {
        let reply = self
            .post("/v1/clubs", None, &json!({"name": "Friday games"}))
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        TestClub {
            id: reply.body["id"].as_str().expect("id").to_owned(),
            token: reply.body["token"].as_str().expect("token").to_owned(),
        }
    }

    /// Creates a game and returns its id.
    pub async fn new_game(&self, club: &TestClub, body: Value) -> String {
        let reply = self.post("/v1/games", Some(&club.token), &body).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        reply.body["id"].as_str().expect("id").to_owned()
    }

    /// Appends events and returns the reply.
    pub async fn append(
        &self,
        club: &TestClub,
        game: &str,
        expected_version: Option<i64>,
        events: Vec<Value>,
    ) -> Reply {
        let mut body = json!({"events": events});
        if let Some(v) = expected_version {
            body["expected_version"] = json!(v);
        }
        self.post(
            &format!("/v1/games/{game}/events"),
            Some(&club.token),
            &body,
        )
        .await
    }

    /// The game's version, read from its log (which must be gapless: as many events as the
    /// version says) — how a test checks that a refused request stored nothing.
    pub async fn version(&self, club: &TestClub, game: &str) -> i64 {
        let log = self
            .get(&format!("/v1/games/{game}/events"), Some(&club.token))
            .await;
        assert_eq!(log.status, StatusCode::OK, "{}", log.body);
        let version = log.body["version"].as_i64().expect("a version");
        assert_eq!(
            log.body["events"].as_array().expect("events").len() as i64,
            version
        );
        version
    }

    pub async fn score(&self, club: &TestClub, game: &str) -> Value {
        let reply = self
            .get(&format!("/v1/games/{game}/score"), Some(&club.token))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        reply.body
    }
}

/// An event with a fresh id.
pub fn event(event_type: &str, data: Value) -> Value {
    json!({"id": uuid::Uuid::new_v4().to_string(), "type": event_type, "data": data})
}

/// `{name: total}` of a scoreboard.
pub fn totals(score: &Value) -> Vec<(String, i64)> {
    let mut totals: Vec<(String, i64)> = score["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_owned(),
                p["total"].as_i64().unwrap_or(i64::MIN),
            )
        })
        .collect();
    totals.sort();
    totals
}

/// A scoreboard's entry for the player with this name.
pub fn player<'a>(score: &'a Value, name: &str) -> &'a Value {
    score["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == name)
        .expect("player")
}

/// `(name, rank)` in the answer's order: a scoreboard's players or a leaderboard's.
pub fn ranks(answer: &Value) -> Vec<(&str, i64)> {
    answer["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["rank"].as_i64().unwrap()))
        .collect()
}

/// A player's points round by round.
pub fn round_points(score: &Value, name: &str) -> Vec<i64> {
    player(score, name)["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|r| r["points"].as_i64().unwrap())
        .collect()
}

/// Every total of a scoreboard is the sum of its breakdown lines and adjustments, and every
/// round's points the sum of its lines: no point is unexplained.
pub fn assert_every_point_is_explained(score: &Value) {
    for player in score["players"].as_array().expect("players") {
        let points = |items: &Value| -> i64 {
            items
                .as_array()
                .expect("a list")
                .iter()
                .map(|l| l["points"].as_i64().unwrap())
                .sum()
        };
        let mut sum = 0;
        for round in player["rounds"].as_array().expect("rounds") {
            let lines = points(&round["breakdown"]);
            assert_eq!(
                round["points"].as_i64().unwrap(),
                lines,
                "{} round {}",
                player["name"],
                round["round"]
            );
            sum += lines;
        }
        sum += points(&player["adjustments"]);
        assert_eq!(player["total"].as_i64().unwrap(), sum, "{}", player["name"]);
    }
}

/// Builds the expected `totals` value from literals.
pub fn expect_totals(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = pairs.iter().map(|(n, t)| ((*n).to_owned(), *t)).collect();
    v.sort();
    v
}

/// One figure of a server's `GET /metrics`.
pub async fn metric(client: &reqwest::Client, server: &str, name: &str) -> u64 {
    let text = client
        .get(format!("{server}/metrics"))
        .send()
        .await
        .expect("the metrics")
        .text()
        .await
        .expect("a body");
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("/metrics has no {name}:\n{text}"))
}

#[cfg(test)]
mod tests {
    use super::test_database::replace_database;

    #[test]
    fn the_test_database_replaces_the_admin_database_in_the_url() {
        assert_eq!(
            replace_database("postgres://u@h:5432/postgres", "t1"),
            "postgres://u@h:5432/t1"
        );
        assert_eq!(
            replace_database("postgres://u@h:5432/postgres?sslmode=disable", "t1"),
            "postgres://u@h:5432/t1?sslmode=disable"
        );
        assert_eq!(
            replace_database("postgres://u@h:5432", "t1"),
            "postgres://u@h:5432/t1"
        );
    }
}
