-- Facility search through an index: an FTS5 table with the trigram tokenizer over each live
-- facility's search text (lower-case, accent-free name, company name, cnpj and cities), so that a
-- substring search (`LIKE '%term%'` on it) of three or more characters reads the trigram index
-- instead of every row. `detail = 'none'`: the index keeps which rows hold each trigram, not
-- where (FTS5 then checks the candidate rows' text), which makes common trigrams' lists several
-- times shorter to read. Shorter terms keep the LIKE scan of `facilities` (no trigram to look up).
-- The triggers keep it in step with `facilities`; `search_rowid` names the facility's entry, so
-- nothing depends on the table's implicit rowid (which VACUUM may renumber).
ALTER TABLE facilities ADD COLUMN search_rowid INTEGER;
CREATE VIRTUAL TABLE facility_search USING fts5(facility_id UNINDEXED, search_text, tokenize = 'trigram', detail = 'none');

INSERT INTO facility_search (rowid, facility_id, search_text)
    SELECT rowid, id, search_text FROM facilities WHERE archived_at IS NULL;
UPDATE facilities SET search_rowid = rowid WHERE archived_at IS NULL;

CREATE TRIGGER facilities_search_insert AFTER INSERT ON facilities WHEN new.archived_at IS NULL
BEGIN
    INSERT INTO facility_search (facility_id, search_text) VALUES (new.id, new.search_text);
    UPDATE facilities SET search_rowid = last_insert_rowid() WHERE id = new.id;
END;

CREATE TRIGGER facilities_search_text AFTER UPDATE OF search_text ON facilities
    WHEN new.archived_at IS NULL AND old.archived_at IS NULL
BEGIN
    UPDATE facility_search SET search_text = new.search_text WHERE rowid = old.search_rowid;
END;

CREATE TRIGGER facilities_search_archive AFTER UPDATE OF archived_at ON facilities
    WHEN old.archived_at IS NULL AND new.archived_at IS NOT NULL
BEGIN
    DELETE FROM facility_search WHERE rowid = old.search_rowid;
    UPDATE facilities SET search_rowid = NULL WHERE id = new.id;
END;

CREATE TRIGGER facilities_search_restore AFTER UPDATE OF archived_at ON facilities
    WHEN old.archived_at IS NOT NULL AND new.archived_at IS NULL
BEGIN
    INSERT INTO facility_search (facility_id, search_text) VALUES (new.id, new.search_text);
    UPDATE facilities SET search_rowid = last_insert_rowid() WHERE id = new.id;
END;

CREATE TRIGGER facilities_search_delete AFTER DELETE ON facilities
BEGIN
    DELETE FROM facility_search WHERE rowid = old.search_rowid;
END;

-- Whether a (equipment, test type) pair belongs in the registry-wide due lists: its equipment is
-- live and active, its facility live, and the test type still one of the equipment's type. Kept by
-- the writes that change any of these (`store::qc_tests::refresh_listed_*` and `refresh_last`), so that "how many tests
-- are overdue" counts one index range instead of joining every pair to three tables.
ALTER TABLE qc_last ADD COLUMN listed INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1));
UPDATE qc_last SET listed = EXISTS (
    SELECT 1 FROM equipment e
    JOIN facilities f ON f.id = e.facility_id
    JOIN test_types t ON t.id = qc_last.test_type_id
    WHERE e.id = qc_last.equipment_id AND e.archived_at IS NULL AND e.active = 1
      AND f.archived_at IS NULL AND t.equipment_type_id = e.equipment_type_id);
CREATE INDEX qc_last_listed_due ON qc_last (listed, next_due);
