-- Nothing to do on PostgreSQL: SQLite's 0005 clusters its read-model tables on their primary
-- keys (WITHOUT ROWID); PostgreSQL tables have no rowid. Kept so both folders number alike.
SELECT 1;
