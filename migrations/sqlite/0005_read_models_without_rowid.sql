-- SQLite: the read-model tables keyed by text become WITHOUT ROWID tables clustered on their
-- primary key, so finishing a game updates one B-tree less per table (measured: the finishing
-- append is the one that pays for the read models). PostgreSQL has no rowid; its 0005 is empty.

CREATE TABLE player_results_clustered (
    game_id     TEXT NOT NULL REFERENCES games (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game        TEXT NOT NULL,
    played_at   TEXT NOT NULL,
    seat        BIGINT NOT NULL,
    total       BIGINT NOT NULL,
    rank        BIGINT NOT NULL,
    won         BIGINT NOT NULL,
    players     BIGINT NOT NULL,
    PRIMARY KEY (game_id, player_id)
) WITHOUT ROWID;
INSERT INTO player_results_clustered
SELECT game_id, player_id, club_id, game, played_at, seat, total, rank, won, players FROM player_results;
DROP TABLE player_results;
ALTER TABLE player_results_clustered RENAME TO player_results;
CREATE INDEX player_results_player ON player_results (club_id, player_id, game, played_at);
CREATE INDEX player_results_game ON player_results (club_id, game, played_at);

CREATE TABLE player_game_totals_clustered (
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    game        TEXT NOT NULL,
    played      BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    total_sum   BIGINT NOT NULL,
    rank_sum    BIGINT NOT NULL,
    min_total   BIGINT NOT NULL,
    max_total   BIGINT NOT NULL,
    last_played TEXT NOT NULL,
    PRIMARY KEY (club_id, player_id, game)
) WITHOUT ROWID;
INSERT INTO player_game_totals_clustered
SELECT club_id, player_id, game, played, wins, total_sum, rank_sum, min_total, max_total, last_played
FROM player_game_totals;
DROP TABLE player_game_totals;
ALTER TABLE player_game_totals_clustered RENAME TO player_game_totals;
