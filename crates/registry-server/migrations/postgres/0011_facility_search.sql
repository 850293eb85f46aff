-- The search text of each live facility, apart from its wide row. A search by `q` alone finds
-- and counts its matches in this table only (`dialect::search_alone`); with other filters, it is
-- a semi-join to it. On `facilities`, checking each candidate's text read the wide row (about
-- 2.3 kB with its kept children, migration 0006): a city term, which matches one facility in
-- eight, took about 25 ms at 100,000 facilities, and 14 ms here (docs/benchmarks.md,
-- twenty-second round). Kept by the trigger below on every insert, archive and change of the
-- text; the trigram index on it is created at start, as the one on `facilities` it replaces was
-- (pg_trgm is an extension: `store::upkeep`).
CREATE TABLE facility_search (
    id TEXT PRIMARY KEY REFERENCES facilities (id) ON DELETE CASCADE,
    search_text TEXT NOT NULL
);

INSERT INTO facility_search (id, search_text)
SELECT id, search_text FROM facilities WHERE archived_at IS NULL;

CREATE FUNCTION facility_search_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.archived_at IS NOT NULL THEN
        DELETE FROM facility_search WHERE id = NEW.id;
    ELSIF TG_OP = 'INSERT' OR OLD.archived_at IS NOT NULL THEN
        INSERT INTO facility_search (id, search_text) VALUES (NEW.id, NEW.search_text)
        ON CONFLICT (id) DO UPDATE SET search_text = EXCLUDED.search_text;
    ELSE
        UPDATE facility_search SET search_text = NEW.search_text WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER facility_search_kept AFTER INSERT ON facilities
    FOR EACH ROW EXECUTE FUNCTION facility_search_kept();
CREATE TRIGGER facility_search_changed AFTER UPDATE OF search_text, archived_at ON facilities
    FOR EACH ROW WHEN (OLD.search_text IS DISTINCT FROM NEW.search_text
                       OR (OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL))
    EXECUTE FUNCTION facility_search_kept();
