-- The event store on SQLite. Timestamps are RFC 3339 text written by the server.

-- A club is a tenant: it sees only its own players and games.
CREATE TABLE clubs (
    id          TEXT PRIMARY KEY,          -- UUID
    name        TEXT NOT NULL,
    token_hash  TEXT NOT NULL,             -- hex SHA-256 of the token's secret; the token is never stored
    created_at  TEXT NOT NULL
);

-- A club's players; the same name (ignoring case) is the same person across games.
CREATE TABLE players (
    id          TEXT PRIMARY KEY,          -- UUID
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    name        TEXT NOT NULL,             -- as first written
    name_key    TEXT NOT NULL,             -- lower-cased name, for matching
    created_at  TEXT NOT NULL,
    CONSTRAINT players_club_name_key UNIQUE (club_id, name_key)
);

-- One row per game: a cache of what its log says (status, version) for listing and filtering.
-- The log in `events` stays the single source of truth.
CREATE TABLE games (
    id          TEXT PRIMARY KEY,          -- UUID, chosen by the client or the server
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game        TEXT NOT NULL,             -- game id, e.g. 'mint-condition'
    status      TEXT NOT NULL CHECK (status IN ('in_progress', 'finished', 'abandoned')),
    version     BIGINT NOT NULL,           -- seq of the last event
    options     TEXT NOT NULL,             -- effective options (JSON), as in game_started
    started_at  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
-- Listing newest first within a club.
CREATE INDEX games_club_started ON games (club_id, started_at DESC, id DESC);

-- Who sat where; names as used by this game's events.
CREATE TABLE game_players (
    game_id     TEXT NOT NULL REFERENCES games (id),
    seat        BIGINT NOT NULL,           -- 1-based, in creation order
    player_id   TEXT NOT NULL REFERENCES players (id),
    name        TEXT NOT NULL,
    color       TEXT,
    PRIMARY KEY (game_id, seat),
    CONSTRAINT game_players_game_player_key UNIQUE (game_id, player_id)
);
CREATE INDEX game_players_player ON game_players (player_id);

-- The log: one stream per game, append-only.
CREATE TABLE events (
    position        INTEGER PRIMARY KEY AUTOINCREMENT,  -- global order of all appends
    game_id         TEXT NOT NULL REFERENCES games (id),
    seq             BIGINT NOT NULL CHECK (seq >= 1),   -- 1, 2, 3 … gapless per game
    event_id        TEXT NOT NULL,                      -- the client's UUID
    type            TEXT NOT NULL,
    schema_version  BIGINT NOT NULL,
    data            TEXT NOT NULL,                      -- JSON
    recorded_at     TEXT NOT NULL,
    -- The database, not the code, guarantees one event per seq and per client id.
    CONSTRAINT events_game_seq_key UNIQUE (game_id, seq),
    CONSTRAINT events_game_event_id_key UNIQUE (game_id, event_id)
);
