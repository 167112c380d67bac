-- A player's runs keep each game's own result (total, rank, lower_wins) and no running sums:
-- every reader sums the runs it needs (a player's results, head-to-head, a month's snapshot),
-- and keeping the sums cost each added game a lookup of the run before it per sum, and each
-- game added before a player's later runs an update of all of those.
ALTER TABLE player_runs
    DROP COLUMN played,
    DROP COLUMN wins,
    DROP COLUMN total_sum,
    DROP COLUMN rank_sum,
    DROP COLUMN lower_games;
