-- A club's table presets: the options and house rules a table always plays one game with (for
-- Vintage also its deck and prizes), by name. A game started with a preset copies them into its
-- game_started, so no log depends on a preset that changes or goes away later.
CREATE TABLE presets (
    id          TEXT PRIMARY KEY,          -- UUID
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    game        TEXT NOT NULL,             -- game id, e.g. 'vintage'
    name        TEXT NOT NULL,             -- as given
    name_key    TEXT NOT NULL,             -- trimmed and lower-cased: names match like players'
    options     TEXT NOT NULL,             -- JSON object as given, checked against the game's options
    created_at  TEXT NOT NULL,
    -- One preset per name and game in a club.
    CONSTRAINT presets_club_game_name_key UNIQUE (club_id, game, name_key)
);
