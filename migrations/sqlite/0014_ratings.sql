-- Skill ratings (issue 54): each rated seat of a finished game, in the order the club's games of
-- that game were played, with the player's Weng-Lin rating before and after it. The server
-- rates a club's games of one game again from the earliest whose result changed, before the
-- ratings are read (`api/src/store/stats/ratings.rs`); it rates the games already stored at
-- its first start after this migration. Derived rows: no foreign keys.
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
    PRIMARY KEY (game_id, player_id)
) WITHOUT ROWID;

-- A club's points of one game in play order: what a recomputation reads and rewrites.
CREATE INDEX rating_points_in_order ON rating_points (club_id, game, played_at, game_id);
-- A player's points of one game in play order: their rating at a date, their history.
CREATE INDEX rating_points_by_player ON rating_points (club_id, game, player_id, played_at, game_id);

-- The games whose result changed since their club's ratings of that game were last brought up
-- to date: a finishing (or un-finishing) append only adds its game here, and the ratings are
-- rated again from the earliest of them before they are next read (or at the server's start).
-- Rows are only added and taken: two appends never wait on one another here.
CREATE TABLE rating_changes (
    club_id      TEXT NOT NULL,
    game         TEXT NOT NULL,
    played_at    TEXT NOT NULL,
    game_id      TEXT NOT NULL
);
CREATE INDEX rating_changes_by_game ON rating_changes (club_id, game, played_at, game_id);
