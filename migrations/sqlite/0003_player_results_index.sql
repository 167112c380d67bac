-- A player's sums are recomputed for one game id at a time: (club, player, game) must be an
-- index prefix, or the planner scans every result of the game (found seeding 100,000 games).
DROP INDEX player_results_player;
CREATE INDEX player_results_player ON player_results (club_id, player_id, game, played_at);
