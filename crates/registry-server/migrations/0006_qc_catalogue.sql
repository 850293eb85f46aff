-- QC tests the registry computes (docs/qc.md): how a test type is computed and its tolerances,
-- the figures computed for a record, and the conclusion of the latest test of each pair (the
-- due lists show it and filter failing ones). Portable DDL (SQLite and PostgreSQL), as in 0001.

ALTER TABLE test_types ADD COLUMN kind TEXT;
ALTER TABLE test_types ADD COLUMN tolerances TEXT;
ALTER TABLE qc_tests ADD COLUMN figures TEXT;
ALTER TABLE qc_last ADD COLUMN last_conclusion TEXT;

UPDATE qc_last SET last_conclusion = (
    SELECT q.conclusion FROM qc_tests q
    WHERE q.equipment_id = qc_last.equipment_id AND q.test_type_id = qc_last.test_type_id
      AND q.archived_at IS NULL
    ORDER BY q.date DESC, q.created_at DESC, q.id DESC
    LIMIT 1
);

-- Seeds applied once per database (the QC catalogue is seeded at start, when enabled, and never
-- again: test types edited or deleted afterwards stay so).
CREATE TABLE catalogue_seeds (
    name TEXT PRIMARY KEY,
    seeded_at TEXT NOT NULL
);
