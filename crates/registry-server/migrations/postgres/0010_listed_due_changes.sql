-- How many pairs of the registry-wide due lists (`qc_last.listed`) fall due on each day, as rows of
-- changes: each statement that changes `qc_last` adds one row per day whose number it changed (+n
-- or -n), and a day's number is the sum of its rows. The lists' exact total ("how many tests are
-- overdue") is then a sum over at most a few thousand rows instead of a count of every matching
-- pair, which grew with the registry (at 100,000 facilities the count was about as costly as
-- the page itself). SQLite keeps one counter per day (its migration 0008); here concurrent QC
-- writes would update counter rows in different orders and could deadlock, while rows that are
-- only ever inserted never wait on each other. The server folds the rows of each day into one
-- now and then (`store::qc_tests::compact_due_counts`).

CREATE TABLE qc_listed_due_changes (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    next_due date NOT NULL,
    pairs bigint NOT NULL CHECK (pairs <> 0)
);
CREATE INDEX qc_listed_due_changes_day ON qc_listed_due_changes (next_due) INCLUDE (pairs);

INSERT INTO qc_listed_due_changes (next_due, pairs)
SELECT next_due, COUNT(*) FROM qc_last WHERE listed GROUP BY next_due;

-- One function for the three statement triggers: each branch reads only the transition tables
-- its event has.
CREATE FUNCTION qc_last_listed_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO qc_listed_due_changes (next_due, pairs)
        SELECT next_due, COUNT(*) FROM new_rows WHERE listed GROUP BY next_due;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO qc_listed_due_changes (next_due, pairs)
        SELECT next_due, -COUNT(*) FROM old_rows WHERE listed GROUP BY next_due;
    ELSE
        INSERT INTO qc_listed_due_changes (next_due, pairs)
        SELECT next_due, SUM(change) FROM (
            SELECT next_due, 1 AS change FROM new_rows WHERE listed
            UNION ALL
            SELECT next_due, -1 FROM old_rows WHERE listed
        ) c GROUP BY next_due HAVING SUM(change) <> 0;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER qc_last_listed_insert AFTER INSERT ON qc_last
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION qc_last_listed_changes();
CREATE TRIGGER qc_last_listed_update AFTER UPDATE ON qc_last
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION qc_last_listed_changes();
CREATE TRIGGER qc_last_listed_delete AFTER DELETE ON qc_last
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION qc_last_listed_changes();
