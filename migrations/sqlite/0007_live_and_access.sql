-- Live table and access (issue 11): the lobby's history, scoped tokens and share links, and the
-- club-creation rate limit kept in the database (so every server counts the same clients).

-- One row per change a club's lobby reports: a game created, finished, abandoned or resumed.
-- Written in the same transaction as the events that caused it, so a lobby stream resumed
-- from a position reads exactly what it missed.
CREATE TABLE game_changes (
    position    INTEGER PRIMARY KEY,       -- position of the commit's last event (global order)
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game_id     TEXT NOT NULL REFERENCES games (id),
    kind        TEXT NOT NULL CHECK (kind IN ('game_created', 'game_finished', 'game_abandoned', 'game_resumed')),
    status      TEXT NOT NULL,             -- the game's status after the change
    version     BIGINT NOT NULL,           -- the game's version after the change
    changed_at  TEXT NOT NULL
);
-- A club's lobby, in order.
CREATE INDEX game_changes_club ON game_changes (club_id, position);

-- Tokens besides the club's first (admin) token, whose hash stays on `clubs`:
-- scoped tokens (`write`, `read`, `admin`) and share links (`share`: one game, read-only, expiring).
CREATE TABLE access_tokens (
    id           TEXT PRIMARY KEY,         -- UUID, part of the token: tk.<id>.<secret> / ts.<id>.<secret>
    club_id      TEXT NOT NULL REFERENCES clubs (id),
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL CHECK (scope IN ('admin', 'write', 'read', 'share')),
    game_id      TEXT REFERENCES games (id),  -- the one game a share link reads; NULL otherwise
    secret_hash  TEXT NOT NULL,            -- hex SHA-256 of the secret; the token is never stored
    created_at   TEXT NOT NULL,
    expires_at   TEXT,                     -- share links expire; NULL: never
    CHECK ((scope = 'share') = (game_id IS NOT NULL))
);
CREATE INDEX access_tokens_club ON access_tokens (club_id, created_at);

-- POST /v1/clubs per client address, in fixed one-minute windows.
CREATE TABLE club_creation_windows (
    client        TEXT PRIMARY KEY,        -- the client's IP address
    window_start  TEXT NOT NULL,
    created       BIGINT NOT NULL          -- clubs created in this window
);
