-- A game's first finish adds to the statistics' shared sums (its players' leaderboard sums,
-- runs and month snapshots, its day and month buckets) later, in a batch with the club's other
-- finishes: the finish writes its seats' results and notes the game here, and the club's notes
-- are settled before the statistics are read, before anything recomputes them, and every
-- fraction of a second in the background (`api/src/store/stats/settle.rs`).
CREATE TABLE statistics_pending (
    club_id  TEXT NOT NULL,
    game_id  TEXT NOT NULL,
    PRIMARY KEY (club_id, game_id)
) WITHOUT ROWID;
