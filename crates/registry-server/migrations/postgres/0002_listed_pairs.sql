-- Whether a (equipment, test type) pair belongs in the registry-wide due lists: its equipment is
-- live and active, its facility live, and the test type still one of the equipment's type. Kept by
-- the writes that change any of these (`store::qc_tests::refresh_listed_*` and `refresh_last`), so that "how many tests
-- are overdue" counts one index range instead of joining every pair to three tables.
ALTER TABLE qc_last ADD COLUMN listed boolean NOT NULL DEFAULT false;
UPDATE qc_last SET listed = EXISTS (
    SELECT 1 FROM equipment e
    JOIN facilities f ON f.id = e.facility_id
    JOIN test_types t ON t.id = qc_last.test_type_id
    WHERE e.id = qc_last.equipment_id AND e.archived_at IS NULL AND e.active
      AND f.archived_at IS NULL AND t.equipment_type_id = e.equipment_type_id);
CREATE INDEX qc_last_listed_due ON qc_last (next_due) WHERE listed;
