-- Which player each merged player went into, so that a merge sent again after its answer was
-- lost is recognised and answered as done (the merged player's own row is gone by then).
CREATE TABLE player_merges (
    from_id     TEXT PRIMARY KEY,          -- the merged player's id (no longer in players)
    club_id     TEXT NOT NULL REFERENCES clubs (id),
    into_id     TEXT NOT NULL,             -- the player who stayed (no foreign key: a later
                                           -- merge may fold them into another in turn)
    merged_at   TEXT NOT NULL
);
