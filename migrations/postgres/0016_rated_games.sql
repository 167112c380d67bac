-- A row a rated game (issue 54, its speed): the game's points, one a rated seat, packed in one
-- value (`api/src/store/stats/rated_seats.rs`) instead of a row a seat. A recomputation writes
-- every game after the one that changed, and its cost is mostly per row inserted. The points
-- are derived: the server rates every finished game again at its first start after this
-- migration.
DROP TABLE rating_points;
CREATE TABLE rated_games (
    club_id    TEXT NOT NULL,
    game       TEXT NOT NULL,               -- the game's id: mint-condition, mind-up…
    played_at  TIMESTAMPTZ NOT NULL,        -- the game's start
    game_id    TEXT NOT NULL,
    points     BYTEA NOT NULL,              -- each rated seat's player, rank, games so far, and μ, σ before and after
    PRIMARY KEY (club_id, game, played_at, game_id)
);
-- No index by player: a player's points are found from their seats (`game_players_player`)
-- by this key, and a walk back through the club's rated games finds each player's last one.
DELETE FROM rating_current;
