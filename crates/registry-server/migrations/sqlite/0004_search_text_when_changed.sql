-- The search index entry of a facility is rewritten only when its search text changes: an edit
-- of the telephone, say, sets the column to the value it had, and every trigram of the old text
-- was deleted from the FTS5 index and inserted again.
DROP TRIGGER facilities_search_text;

CREATE TRIGGER facilities_search_text AFTER UPDATE OF search_text ON facilities
    WHEN new.archived_at IS NULL AND old.archived_at IS NULL
         AND new.search_text IS NOT old.search_text
BEGIN
    UPDATE facility_search SET search_text = new.search_text WHERE rowid = old.search_rowid;
END;
