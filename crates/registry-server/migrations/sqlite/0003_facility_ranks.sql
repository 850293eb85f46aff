-- Dense ranks of the live facilities in id order (1 = oldest), over all of them and within their
-- department, kept by the writes (`store/sql/facility_ranks.rs`): a page of the whole list or of a
-- department's is then a range of one index instead of an OFFSET walk. NULL while archived.
ALTER TABLE facilities ADD COLUMN live_rank INTEGER;
ALTER TABLE facilities ADD COLUMN department_rank INTEGER;
UPDATE facilities SET live_rank = r.overall, department_rank = r.within
FROM (
    SELECT id,
           ROW_NUMBER() OVER (ORDER BY id) AS overall,
           ROW_NUMBER() OVER (PARTITION BY department ORDER BY id) AS within
    FROM facilities WHERE archived_at IS NULL
) r
WHERE r.id = facilities.id;
CREATE INDEX facilities_live_rank ON facilities (live_rank);
CREATE INDEX facilities_department_rank ON facilities (department, department_rank);
