-- Read models for club statistics. They hold only what the log already says about finished
-- games, are written in the same transaction as the append that changes a game's result, and
-- can be rebuilt from the events at any time (`tabletally rebuild-stats`).

-- One row per player of each finished game (abandoned and unfinished games have none).
CREATE TABLE player_results (
    game_id     TEXT NOT NULL REFERENCES games (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game        TEXT NOT NULL,             -- game id, e.g. 'mint-condition'
    played_at   TIMESTAMPTZ NOT NULL,             -- the game's started_at: when the table played
    seat        BIGINT NOT NULL,
    total       BIGINT NOT NULL,
    rank        BIGINT NOT NULL,
    won         BIGINT NOT NULL,           -- 1 when ranked first (a shared win counts), else 0
    players     BIGINT NOT NULL,           -- how many sat at the table
    PRIMARY KEY (game_id, player_id)
);
-- A player's history, and a game's results over time.
CREATE INDEX player_results_player ON player_results (club_id, player_id, played_at);
CREATE INDEX player_results_game ON player_results (club_id, game, played_at);

-- Sums per club, player and game, so the leaderboard does not scan every result.
CREATE TABLE player_game_totals (
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    game        TEXT NOT NULL,
    played      BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    total_sum   BIGINT NOT NULL,
    rank_sum    BIGINT NOT NULL,
    min_total   BIGINT NOT NULL,
    max_total   BIGINT NOT NULL,
    last_played TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (club_id, player_id, game)
);

-- Game-specific numbers of finished games (damage per card kind, objective hits …).
CREATE TABLE result_facts (
    game_id     TEXT NOT NULL REFERENCES games (id),
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game        TEXT NOT NULL,
    played_at   TIMESTAMPTZ NOT NULL,
    player_id   TEXT REFERENCES players (id),  -- NULL: a fact about the whole game
    key         TEXT NOT NULL,
    value       BIGINT NOT NULL
);
CREATE INDEX result_facts_club_game ON result_facts (club_id, game, played_at);
CREATE INDEX result_facts_game_id ON result_facts (game_id);
