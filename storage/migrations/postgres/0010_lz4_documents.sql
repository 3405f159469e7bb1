-- The stored states and reports (20-50 KB of JSON each) are compressed with lz4 instead of the
-- default pglz: a sweep writes three of them per resolved turn, and pglz made the server spend
-- about twice the CPU on them. Only values written from now on change; a server built without
-- lz4 keeps pglz.

DO $$
BEGIN
    ALTER TABLE matches ALTER COLUMN state SET COMPRESSION lz4;
    ALTER TABLE matches ALTER COLUMN initial_state SET COMPRESSION lz4;
    ALTER TABLE turns ALTER COLUMN state SET COMPRESSION lz4;
    ALTER TABLE turns ALTER COLUMN report SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;
