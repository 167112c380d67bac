-- Ratings in play order (issue 54, its speed). A recomputation rewrites a club's points of one
-- game from a date on: keyed in play order, they are removed and written again at the end of
-- one range, where keyed by game id (a random UUID) each landed somewhere else. The points are
-- derived: the server rates every finished game again at its first start after this migration.
DROP TABLE rating_points;
CREATE TABLE rating_points (
    club_id      TEXT NOT NULL,
    game         TEXT NOT NULL,             -- the game's id: mint-condition, mind-up…
    played_at    TEXT NOT NULL,             -- the game's start
    game_id      TEXT NOT NULL,
    player_id    TEXT NOT NULL,
    rank         BIGINT NOT NULL,           -- the seat's final rank, ties shared
    mu_before    REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu           REAL NOT NULL,
    sigma        REAL NOT NULL,
    games        BIGINT NOT NULL,           -- the player's rated games of this game so far, this one included
    PRIMARY KEY (club_id, game, played_at, game_id, player_id)
) WITHOUT ROWID;
-- No index by player: a player's points are found from their seats (`game_players_player`)
-- by the points' key, and a walk back through the club's points finds each player's last
-- one. Inserted at 2,000 places, such an index cost more than the rest of a recomputation.

-- Each player's rating now (their last point), written with the points: the club's table of
-- one game is one range of this, in its order, instead of a search per player.
CREATE TABLE rating_current (
    club_id        TEXT NOT NULL,
    game           TEXT NOT NULL,
    player_id      TEXT NOT NULL,
    mu             REAL NOT NULL,
    sigma          REAL NOT NULL,
    ordinal        REAL NOT NULL,             -- mu - 3 sigma, as the server computes it
    games          BIGINT NOT NULL,
    last_played_at TEXT NOT NULL,
    PRIMARY KEY (club_id, game, player_id)
) WITHOUT ROWID;
CREATE INDEX rating_current_ranked ON rating_current (club_id, game, ordinal DESC, player_id);
