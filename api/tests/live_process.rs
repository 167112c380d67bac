//! The `tabletally` process with live streams: no token in the logs even at `RUST_LOG=debug`,
//! and SIGTERM ends open streams cleanly so the server can stop.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

/// The server process on a fresh SQLite file; its log lines are collected.
struct Server {
    child: Child,
    address: String,
    log: Arc<Mutex<Vec<String>>>,
    db: std::path::PathBuf,
}

impl Server {
    fn start(rust_log: &str) -> Server {
        let db = std::env::temp_dir().join(format!("tabletally-live-{}.db", uuid::Uuid::new_v4()));
        Self::start_on(db, rust_log)
    }

    fn start_on(db: std::path::PathBuf, rust_log: &str) -> Server {
        let mut child = command(&db, rust_log)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the tabletally binary");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (ready, address) = mpsc::channel();
        collect(
            child.stdout.take().expect("stdout"),
            log.clone(),
            ready.clone(),
        );
        collect(child.stderr.take().expect("stderr"), log.clone(), ready);
        let address = address
            .recv_timeout(Duration::from_secs(30))
            .expect("the server logs its address");
        Server {
            child,
            address,
            log,
            db,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    fn log(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .join("\n")
    }

    /// SIGTERM, then the exit status.
    fn terminate(&mut self) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(sent.success());
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the server did not stop within 30 s of SIGTERM:\n{}",
            self.log()
        );
    }
}

/// The server binary on the SQLite file `db`.
fn command(db: &std::path::Path, rust_log: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tabletally"));
    command
        .env("TABLETALLY_ADDR", "127.0.0.1:0")
        .env("DATABASE_URL", format!("sqlite://{}", db.display()))
        .env("RUST_LOG", rust_log)
        .env("TABLETALLY_WORKERS", "2")
        .env("NO_COLOR", "1")
        .env_remove("TABLETALLY_LOG_FORMAT")
        .stdin(Stdio::null());
    command
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        for suffix in ["", "-wal", "-shm", ".server-lock"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.db.display()));
        }
    }
}

fn collect(
    stream: impl Read + Send + 'static,
    log: Arc<Mutex<Vec<String>>>,
    ready: mpsc::Sender<String>,
) {
    std::thread::spawn(move || {
        const MARK: &str = "listening on ";
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if let Some(at) = line.find(MARK) {
                let address: String = line[at + MARK.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || ":/.".contains(*c))
                    .collect();
                let _ = ready.send(address);
            }
            log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    });
}

async fn club_and_game(client: &reqwest::Client, server: &Server) -> (String, String) {
    let club: Value = client
        .post(server.url("/v1/clubs"))
        .json(&json!({"name": "Friday games"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = club["token"].as_str().unwrap().to_owned();
    let game: Value = client
        .post(server.url("/v1/games"))
        .bearer_auth(&token)
        .json(&json!({"game": "mint-condition", "players": [{"name": "Ann"}, {"name": "Bo"}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (token, game["id"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_token_in_a_stream_url_never_reaches_the_log_even_at_debug() {
    // Arrange
    let server = Server::start("debug");
    let client = reqwest::Client::new();
    let (token, game) = club_and_game(&client, &server).await;
    let (_, secret) = token.rsplit_once('.').unwrap();

    // Act: a stream opened with the token in its URL, the same URL on a path that refuses it,
    // a share link's token in a URL, and the token in forms the server does not take.
    let mut stream = client
        .get(server.url(&format!("/v1/games/{game}/stream?access_token={token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let first = stream.chunk().await.unwrap().expect("the snapshot");
    assert!(String::from_utf8_lossy(&first).starts_with("event: snapshot"));
    let refused = client
        .get(server.url(&format!("/v1/games/{game}?access_token={token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let share: Value = client
        .post(server.url(&format!("/v1/games/{game}/shares")))
        .bearer_auth(&token)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let share_token = share["token"].as_str().unwrap().to_owned();
    let (_, share_secret) = share_token.rsplit_once('.').unwrap();
    let lobby = client
        .get(server.url(&format!(
            "/v1/stream?last_event_id=0&access_token={share_token}"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(lobby.status(), 404);
    // Forms the server does not take (an encoded name, `;` between pairs), refused and logged
    // without the secret too.
    for form in [
        format!("/v1/stream?access%5Ftoken={token}"),
        format!("/v1/stream?last_event_id=0;access_token={token}"),
    ] {
        let refused = client.get(server.url(&form)).send().await.unwrap();
        assert!(
            refused.status().is_client_error(),
            "{form}: {}",
            refused.status()
        );
    }
    drop(stream);
    // Let the server write its last lines.
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Assert: the requests were logged, with the token redacted.
    let log = server.log();
    assert!(
        log.contains("access_token=REDACTED"),
        "the stream's request line is logged:\n{log}"
    );
    assert!(
        !log.contains(secret),
        "the club token's secret is in the log"
    );
    assert!(
        !log.contains(share_secret),
        "the share token's secret is in the log"
    );
}

#[tokio::test]
async fn sigterm_ends_open_streams_and_the_server_stops() {
    // Arrange: a game stream and a lobby stream are open.
    let mut server = Server::start("info");
    let client = reqwest::Client::new();
    let (token, game) = club_and_game(&client, &server).await;
    let mut stream = client
        .get(server.url(&format!("/v1/games/{game}/stream")))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let mut lobby = client
        .get(server.url("/v1/stream"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert!(stream.chunk().await.unwrap().is_some());
    assert!(lobby.chunk().await.unwrap().is_some());

    // Act
    let status = tokio::task::spawn_blocking(move || {
        let status = server.terminate();
        (status, server)
    });

    // Assert: both streams end (no error: a clean end of the body), and the process exits 0.
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        while stream.chunk().await.expect("a clean end").is_some() {}
        while lobby.chunk().await.expect("a clean end").is_some() {}
    })
    .await;
    assert!(ended.is_ok(), "the streams did not end");
    let (status, server) = status.await.unwrap();
    assert!(status.success(), "exit status {status}:\n{}", server.log());
}

#[tokio::test]
async fn a_second_server_on_the_same_sqlite_file_is_refused_until_the_first_stops() {
    // Arrange: a server on its SQLite file.
    let mut first = Server::start("info");

    // Act: a second server process on the same file.
    let second = command(&first.db, "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the second server runs");

    // Assert: it stops at once, saying why and what to use instead.
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&second.stdout),
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(!second.status.success(), "{said}");
    assert!(
        said.contains("another tabletally server has the SQLite database")
            && said.contains("use PostgreSQL"),
        "{said}"
    );
    // The first one still serves.
    let health = reqwest::get(first.url("/healthz"))
        .await
        .expect("the first answers");
    assert!(health.status().is_success());

    // And once it has stopped, the file serves a new server.
    assert!(first.terminate().success());
    let db = first.db.clone();
    let again = Server::start_on(db, "info");
    let health = reqwest::get(again.url("/healthz"))
        .await
        .expect("the new server answers");
    assert!(health.status().is_success());
}
