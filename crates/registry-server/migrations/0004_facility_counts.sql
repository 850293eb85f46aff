-- Live facilities per department, kept by the same transactions that create, move and archive
-- facilities, so an unfiltered list answers its total without counting 100,000 rows.
CREATE TABLE facility_counts (
    department TEXT PRIMARY KEY,
    live BIGINT NOT NULL
);
INSERT INTO facility_counts (department, live) VALUES ('Medicina Nuclear', 0), ('Radiodiagnóstico', 0);
UPDATE facility_counts SET live = (
    SELECT COUNT(*) FROM facilities f WHERE f.department = facility_counts.department AND f.archived_at IS NULL
);
