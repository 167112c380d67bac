-- Who recorded each event: the name of the token that appended it ("club token" for the club's
-- first token, else the scoped token's name, e.g. "Ann's phone"). A name, not a token id, so
-- the log still reads after the token is revoked. Events stored before this column are NULL.
ALTER TABLE events ADD COLUMN recorded_by TEXT;
