//! The cycle's own floor: the rows one game of the cycle wrote, written again by hand, one
//! transaction per request (issue 31). A raw single-row commit is the floor of a plain append;
//! a creation or a finishing append writes many more rows (seats, the lobby, the statistics'
//! read models), so the cycle is compared with the same rows written with no server at all.
//!
//! One finished game of the run is read back from every table its requests wrote, and each
//! request's rows are then put again under a new game id, `tables` games at once on
//! PostgreSQL (one connection each) and one at a time on SQLite (one writer):
//! - the creation: the game's row, its seats, its first event, the lobby's `game_created`;
//! - each append: its event and the game's version;
//! - the finishing append also: the game's and its seats' final rows, the players' totals and
//!   runs, the day and month buckets, the lobby's `game_finished`.
//!
//! Rows are copied through JSON with the tables' own column lists, read from the database, so a
//! new column is copied too; keys come from the tables' primary keys (an upsert where the server
//! updates a row other games share: totals and buckets).

use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use sqlx::{Connection, Row};

/// One request's writes on `conn` (a transaction of either database).
macro_rules! put_request {
    ($floor:expr, $conn:expr, $request:expr, $id:expr) => {{
        let conn = $conn;
        let mut position = 0i64;
        for put in $request {
            if let Put::Version(version) = put {
                sqlx::query("UPDATE games SET version = $1 WHERE id = $2")
                    .bind(*version)
                    .bind($id)
                    .execute(&mut *conn)
                    .await
                    .map_err(|e| e.to_string())?;
                continue;
            }
            let Some((key, row)) = $floor.row_of(put, $id, position) else {
                continue;
            };
            let query = sqlx::query(sqlx::AssertSqlSafe($floor.statements[&key].clone())).bind(row);
            if key.0 == "events" {
                let row = query
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(|e| e.to_string())?;
                position = row.try_get::<i64, _>(0).map_err(|e| e.to_string())?;
            } else {
                query.execute(&mut *conn).await.map_err(|e| e.to_string())?;
            }
        }
    }};
}

/// A row as JSON, column by column.
type Fields = Map<String, Value>;

/// One write of a request.
enum Put {
    /// A row inserted, or upserted on the table's primary key.
    Row {
        table: &'static str,
        fields: Fields,
        upsert: bool,
    },
    /// The event: inserted with a new client id; its position goes to the lobby's row.
    Event(Fields),
    /// The lobby's row, at the position of the request's event.
    Change(Fields),
    /// The game's version moved on (an append that does not finish the game).
    Version(i64),
}

/// The database the rows go to, and the tables' column lists and keys.
enum Db {
    Postgres(sqlx::PgPool),
    Sqlite(sqlx::SqlitePool),
}

/// A table's columns and primary key.
struct Shape {
    columns: Vec<String>,
    key: Vec<String>,
}

/// The tables a cycle writes, in the order a creation needs them.
const TABLES: [&str; 7] = [
    "games",
    "game_players",
    "events",
    "game_changes",
    "player_game_totals",
    "player_runs",
    "game_buckets",
];

impl Db {
    async fn connect(database_url: &str, connections: u32) -> Result<Self, String> {
        Ok(if database_url.starts_with("postgres") {
            Db::Postgres(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(connections)
                    .connect(database_url)
                    .await
                    .map_err(|e| e.to_string())?,
            )
        } else {
            let options: sqlx::sqlite::SqliteConnectOptions = database_url
                .parse::<sqlx::sqlite::SqliteConnectOptions>()
                .map_err(|e| e.to_string())?
                .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
                .synchronous(sqlx::sqlite::SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(5));
            Db::Sqlite(
                sqlx::sqlite::SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(options)
                    .await
                    .map_err(|e| e.to_string())?,
            )
        })
    }

    async fn shape(&self, table: &str) -> Result<Shape, String> {
        let rows: Vec<(String, bool)> = match self {
            Db::Postgres(pool) => sqlx::query_as(
                "SELECT c.column_name::text, COALESCE(c.column_name = ANY (\
                     SELECT a.attname::text FROM pg_index i JOIN pg_attribute a \
                     ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) \
                     WHERE i.indrelid = $1::regclass AND i.indisprimary), false) \
                 FROM information_schema.columns c \
                 WHERE c.table_schema = current_schema() AND c.table_name = $1 \
                 ORDER BY c.ordinal_position",
            )
            .bind(table)
            .fetch_all(pool)
            .await
            .map_err(|e| e.to_string())?,
            Db::Sqlite(pool) => {
                sqlx::query_as("SELECT name, pk > 0 FROM pragma_table_info($1) ORDER BY cid")
                    .bind(table)
                    .fetch_all(pool)
                    .await
                    .map_err(|e| e.to_string())?
            }
        };
        if rows.is_empty() {
            return Err(format!("no table {table} in the database"));
        }
        Ok(Shape {
            key: rows
                .iter()
                .filter(|(_, k)| *k)
                .map(|(c, _)| c.clone())
                .collect(),
            columns: rows.into_iter().map(|(c, _)| c).collect(),
        })
    }

    /// The rows of `table` where `column` is `value`, as JSON.
    async fn rows(
        &self,
        table: &str,
        shape: &Shape,
        column: &str,
        value: &str,
    ) -> Result<Vec<Fields>, String> {
        let texts: Vec<String> = match self {
            Db::Postgres(pool) => sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT to_jsonb(t)::text FROM {table} t WHERE {column} = $1"
            )))
            .bind(value)
            .fetch_all(pool)
            .await
            .map_err(|e| e.to_string())?,
            Db::Sqlite(pool) => {
                let pairs: Vec<String> = shape
                    .columns
                    .iter()
                    .map(|c| format!("'{c}', {c}"))
                    .collect();
                sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT json_object({}) FROM {table} WHERE {column} = $1",
                    pairs.join(", ")
                )))
                .bind(value)
                .fetch_all(pool)
                .await
                .map_err(|e| e.to_string())?
            }
        };
        texts
            .into_iter()
            .map(|t| match serde_json::from_str(&t) {
                Ok(Value::Object(fields)) => Ok(fields),
                _ => Err(format!("a row of {table} that is not a JSON object: {t}")),
            })
            .collect()
    }

    /// The statement that puts one row of `table` given as JSON in `$1` (upserted on its key
    /// when `upsert`); `returning` is added at the end.
    fn put_sql(&self, table: &str, shape: &Shape, upsert: bool, returning: &str) -> String {
        // The log's position is the database's own (an identity, or SQLite's rowid).
        let columns: Vec<&String> = shape
            .columns
            .iter()
            .filter(|c| !(table == "events" && c.as_str() == "position"))
            .collect();
        let list = columns
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let values = match self {
            Db::Postgres(_) => {
                format!("SELECT {list} FROM jsonb_populate_record(NULL::{table}, $1::jsonb)")
            }
            Db::Sqlite(_) => format!(
                "SELECT {} WHERE true",
                columns
                    .iter()
                    .map(|c| format!("json_extract($1, '$.\"{c}\"')"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let conflict = if upsert {
            let set: Vec<String> = columns
                .iter()
                .filter(|c| !shape.key.contains(c))
                .map(|c| format!("{c} = excluded.{c}"))
                .collect();
            format!(
                " ON CONFLICT ({}) DO UPDATE SET {}",
                shape.key.join(", "),
                set.join(", ")
            )
        } else {
            String::new()
        };
        format!("INSERT INTO {table} ({list}) {values}{conflict}{returning}")
    }
}

/// The writes of each request of one game, and the statements that put them.
pub struct Floor {
    db: Db,
    requests: Vec<Vec<Put>>,
    /// The finished game's id, replaced by each copy's own.
    game: String,
    statements: std::collections::HashMap<(&'static str, bool), String>,
}

impl Floor {
    /// Reads back the rows of `game` (finished in the run) and what its requests wrote.
    pub async fn of_game(database_url: &str, game: &str, connections: u32) -> Result<Self, String> {
        let db = Db::connect(database_url, connections).await?;
        let mut shapes = std::collections::HashMap::new();
        for table in TABLES {
            shapes.insert(table, db.shape(table).await?);
        }
        let one = |rows: Vec<Fields>, what: &str| {
            rows.into_iter()
                .next()
                .ok_or_else(|| format!("the finished game has no {what}"))
        };
        let row = one(db.rows("games", &shapes["games"], "id", game).await?, "row")?;
        let text = |fields: &Fields, column: &str| {
            fields
                .get(column)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let (club, kind, started) = (
            text(&row, "club_id"),
            text(&row, "game"),
            text(&row, "started_at"),
        );
        let seats = db
            .rows("game_players", &shapes["game_players"], "game_id", game)
            .await?;
        let mut events = db
            .rows("events", &shapes["events"], "game_id", game)
            .await?;
        events.sort_by_key(|e| e["seq"].as_i64());
        let mut changes = db
            .rows("game_changes", &shapes["game_changes"], "game_id", game)
            .await?;
        changes.sort_by_key(|c| c["position"].as_i64());
        let players: Vec<String> = seats.iter().map(|s| text(s, "player_id")).collect();
        let totals: Vec<Fields> = db
            .rows(
                "player_game_totals",
                &shapes["player_game_totals"],
                "club_id",
                &club,
            )
            .await?
            .into_iter()
            .filter(|t| text(t, "game") == kind && players.contains(&text(t, "player_id")))
            .collect();
        let runs = db
            .rows("player_runs", &shapes["player_runs"], "game_id", game)
            .await?;
        // The game's day and month: for each variant and span, the latest bucket starting at or
        // before the game (timestamps in one database share one format).
        let mut buckets: std::collections::BTreeMap<(String, String), Fields> = Default::default();
        for bucket in db
            .rows("game_buckets", &shapes["game_buckets"], "club_id", &club)
            .await?
        {
            let at = text(&bucket, "starts_at");
            if text(&bucket, "game") != kind || at > started {
                continue;
            }
            let slot = (text(&bucket, "variant"), text(&bucket, "span"));
            if buckets.get(&slot).is_none_or(|b| text(b, "starts_at") < at) {
                buckets.insert(slot, bucket);
            }
        }
        if events.len() < 2
            || changes.len() < 2
            || totals.len() != seats.len()
            || runs.len() != seats.len()
        {
            return Err(format!(
                "game {game} is not a finished game of the cycle: {} events, {} lobby rows, {} totals and {} runs for {} seats",
                events.len(),
                changes.len(),
                totals.len(),
                runs.len(),
                seats.len()
            ));
        }

        let mut first = row.clone();
        first.insert("version".into(), Value::from(1));
        first.insert("status".into(), Value::from("in_progress"));
        let mut requests = Vec::new();
        let mut create = vec![Put::Row {
            table: "games",
            fields: first,
            upsert: false,
        }];
        create.extend(seats.iter().map(|s| Put::Row {
            table: "game_players",
            fields: s.clone(),
            upsert: false,
        }));
        create.push(Put::Event(events[0].clone()));
        create.push(Put::Change(changes[0].clone()));
        requests.push(create);
        let last = events.len() - 1;
        for (i, event) in events.iter().enumerate().skip(1) {
            let mut append = vec![Put::Event(event.clone())];
            if i < last {
                append.push(Put::Version(event["seq"].as_i64().unwrap_or(0)));
            } else {
                let rows = |table, rows: &mut dyn Iterator<Item = &Fields>, upsert| {
                    rows.map(|fields| Put::Row {
                        table,
                        fields: fields.clone(),
                        upsert,
                    })
                    .collect::<Vec<_>>()
                };
                append.extend(rows("games", &mut std::iter::once(&row), true));
                append.extend(rows("game_players", &mut seats.iter(), true));
                append.extend(rows("player_game_totals", &mut totals.iter(), true));
                append.extend(rows("player_runs", &mut runs.iter(), false));
                append.extend(rows("game_buckets", &mut buckets.values(), true));
                append.extend(changes[1..].iter().map(|c| Put::Change(c.clone())));
            }
            requests.push(append);
        }

        let mut statements = std::collections::HashMap::new();
        for table in TABLES {
            for upsert in [false, true] {
                let returning = if table == "events" {
                    " RETURNING position"
                } else {
                    ""
                };
                if upsert && shapes[table].key.is_empty() {
                    continue;
                }
                statements.insert(
                    (table, upsert),
                    db.put_sql(table, &shapes[table], upsert, returning),
                );
            }
        }
        Ok(Self {
            db,
            requests,
            game: game.to_owned(),
            statements,
        })
    }

    /// How many requests one game takes (a creation and its appends).
    pub fn requests_per_game(&self) -> usize {
        self.requests.len()
    }

    /// Rows written in all by one game's requests.
    pub fn rows_per_game(&self) -> usize {
        self.requests
            .iter()
            .map(|r| r.iter().filter(|p| !matches!(p, Put::Version(_))).count())
            .sum()
    }

    /// `writers` games at once (one on SQLite), request by request, for `seconds` after a
    /// second's warm-up: requests a second.
    pub async fn rate(
        self: &std::sync::Arc<Self>,
        writers: usize,
        seconds: Duration,
    ) -> Result<f64, String> {
        let writers = match self.db {
            Db::Postgres(_) => writers.max(1),
            Db::Sqlite(_) => 1,
        };
        let run = |until: Instant| {
            let all: Vec<_> = (0..writers)
                .map(|_| {
                    let floor = self.clone();
                    tokio::spawn(async move {
                        let mut requests = 0u64;
                        while Instant::now() < until {
                            requests += floor.one_game(until).await?;
                        }
                        Ok::<_, String>(requests)
                    })
                })
                .collect();
            async move {
                let mut total = 0;
                for writer in all {
                    total += writer.await.map_err(|e| e.to_string())??;
                }
                Ok::<_, String>(total)
            }
        };
        run(Instant::now() + Duration::from_secs(1)).await?;
        let started = Instant::now();
        let requests = run(started + seconds).await?;
        Ok(requests as f64 / started.elapsed().as_secs_f64())
    }

    /// One game's requests under a new id, each in its transaction; how many were written
    /// before `until`.
    async fn one_game(&self, until: Instant) -> Result<u64, String> {
        let id = uuid::Uuid::new_v4().to_string();
        let mut done = 0;
        for request in &self.requests {
            if Instant::now() >= until {
                break;
            }
            match &self.db {
                Db::Postgres(pool) => {
                    let mut tx = pool.begin().await.map_err(|e| e.to_string())?;
                    put_request!(self, &mut *tx, request, &id);
                    tx.commit().await.map_err(|e| e.to_string())?;
                }
                Db::Sqlite(pool) => {
                    let mut conn = pool.acquire().await.map_err(|e| e.to_string())?;
                    let mut tx = conn
                        .begin_with("BEGIN IMMEDIATE")
                        .await
                        .map_err(|e| e.to_string())?;
                    put_request!(self, &mut *tx, request, &id);
                    tx.commit().await.map_err(|e| e.to_string())?;
                }
            }
            done += 1;
        }
        Ok(done)
    }

    /// A put's table and upsert, and its row under the copy's id (`position`: the request's
    /// event's, for the lobby's row); `None` for a version moving on.
    fn row_of(&self, put: &Put, id: &str, position: i64) -> Option<((&'static str, bool), String)> {
        let (key, mut fields) = match put {
            Put::Row {
                table,
                fields,
                upsert,
            } => ((*table, *upsert), fields.clone()),
            Put::Event(fields) => {
                let mut fields = fields.clone();
                fields.insert(
                    "event_id".into(),
                    Value::from(uuid::Uuid::new_v4().to_string()),
                );
                (("events", false), fields)
            }
            Put::Change(fields) => {
                let mut fields = fields.clone();
                fields.insert("position".into(), Value::from(position));
                (("game_changes", false), fields)
            }
            Put::Version(_) => return None,
        };
        for value in fields.values_mut() {
            if value.as_str() == Some(self.game.as_str()) {
                *value = Value::from(id);
            }
        }
        // On PostgreSQL the server adds a game to one of a bucket's 8 shards, picked by its id,
        // so that tables finishing at once do not all wait on one row: so does the copy.
        if key.0 == "game_buckets"
            && matches!(self.db, Db::Postgres(_))
            && let Some(shard) = fields.get_mut("shard")
        {
            *shard = Value::from(u64::from_str_radix(&id[..8], 16).unwrap_or(0) % 8);
        }
        Some((key, Value::Object(fields).to_string()))
    }
}
