-- A row a rated game (issue 54, its speed): the game's points, one a rated seat, packed in one
-- value (`api/src/store/stats/rated_seats.rs`) instead of a row a seat. A recomputation writes
-- every game after the one that changed, and SQLite's cost is per row inserted: 350,000 seats
-- as rows took 1.5 s to write, the same 100,000 games as rows 0.3 s. The points are derived:
-- the server rates every finished game again at its first start after this migration.
DROP TABLE rating_points;
CREATE TABLE rated_games (
    club_id    TEXT NOT NULL,
    game       TEXT NOT NULL,               -- the game's id: mint-condition, mind-up…
    played_at  TEXT NOT NULL,               -- the game's start
    game_id    TEXT NOT NULL,
    points     BLOB NOT NULL,               -- each rated seat's player, rank, games so far, and μ, σ before and after
    PRIMARY KEY (club_id, game, played_at, game_id)
) WITHOUT ROWID;
-- No index by player: a player's points are found from their seats (`game_players_player`)
-- by this key, and a walk back through the club's rated games finds each player's last one.
DELETE FROM rating_current;
