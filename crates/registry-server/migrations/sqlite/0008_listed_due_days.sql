-- How many pairs of the registry-wide due lists (`qc_last.listed`) fall due on each day, kept by
-- triggers in the transaction that changes `qc_last`. The lists' exact total ("how many tests
-- are overdue") is then a sum over days (at most a few thousand rows, however large the
-- registry) instead of a count of every matching pair in `qc_last_listed_due`, which grew with
-- the registry and cost three times the page itself at 100,000 facilities (docs/benchmarks.md,
-- "twelfth round"). SQLite has one writer at a time, so the counters never wait on each other.

CREATE TABLE qc_listed_due_days (
    next_due TEXT PRIMARY KEY,
    pairs INTEGER NOT NULL CHECK (pairs > 0)
) STRICT, WITHOUT ROWID;

INSERT INTO qc_listed_due_days (next_due, pairs)
SELECT next_due, COUNT(*) FROM qc_last WHERE listed = 1 GROUP BY next_due;

CREATE TRIGGER qc_last_listed_insert AFTER INSERT ON qc_last WHEN NEW.listed = 1
BEGIN
    INSERT INTO qc_listed_due_days (next_due, pairs) VALUES (NEW.next_due, 1)
        ON CONFLICT (next_due) DO UPDATE SET pairs = pairs + 1;
END;

CREATE TRIGGER qc_last_listed_delete AFTER DELETE ON qc_last WHEN OLD.listed = 1
BEGIN
    DELETE FROM qc_listed_due_days WHERE next_due = OLD.next_due AND pairs = 1;
    UPDATE qc_listed_due_days SET pairs = pairs - 1 WHERE next_due = OLD.next_due;
END;

CREATE TRIGGER qc_last_listed_update AFTER UPDATE OF listed, next_due ON qc_last
    WHEN OLD.listed IS NOT NEW.listed OR OLD.next_due IS NOT NEW.next_due
BEGIN
    DELETE FROM qc_listed_due_days
        WHERE OLD.listed = 1 AND next_due = OLD.next_due AND pairs = 1;
    UPDATE qc_listed_due_days SET pairs = pairs - 1
        WHERE OLD.listed = 1 AND next_due = OLD.next_due;
    INSERT INTO qc_listed_due_days (next_due, pairs) SELECT NEW.next_due, 1 WHERE NEW.listed = 1
        ON CONFLICT (next_due) DO UPDATE SET pairs = pairs + 1;
END;
