-- The latest live QC test of each (equipment, test type) pair and its next due date, kept by the
-- transactions that record, edit or delete tests and that change a test type's period, so that
-- "what is overdue" reads an index on next_due instead of judging every pair. Filled by the server
-- at start when it is empty and tests exist (the date arithmetic differs per backend).
CREATE TABLE qc_last (
    equipment_id TEXT NOT NULL REFERENCES equipment (id),
    test_type_id TEXT NOT NULL REFERENCES test_types (id),
    last_date TEXT NOT NULL,
    next_due TEXT NOT NULL,
    PRIMARY KEY (equipment_id, test_type_id)
);
CREATE INDEX qc_last_next_due ON qc_last (next_due);
