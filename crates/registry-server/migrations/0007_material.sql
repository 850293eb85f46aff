-- Radioactive material received, waste in decay storage, and the daily notice digests
-- (docs/radioactive-material.md). Portable DDL (SQLite and PostgreSQL), as in 0001.

CREATE TABLE material_receipts (
    id TEXT PRIMARY KEY,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    radioisotope TEXT NOT NULL,
    -- mCi as declared at activity_reference_at, and decayed to received_at (what counts).
    activity DOUBLE PRECISION NOT NULL,
    activity_reference_at TEXT NOT NULL,
    activity_at_receipt DOUBLE PRECISION NOT NULL,
    supplier TEXT NOT NULL,
    lot TEXT,
    received_by TEXT NOT NULL,
    received_at TEXT NOT NULL,
    -- The ISO week in Brasília, `YYYY-Www`.
    week TEXT NOT NULL,
    over_quantity BIGINT NOT NULL DEFAULT 0,
    notes TEXT,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX material_receipts_week ON material_receipts (facility_id, week, radioisotope);
CREATE INDEX material_receipts_facility ON material_receipts (facility_id, id);
CREATE INDEX material_receipts_over ON material_receipts (week) WHERE over_quantity = 1;

CREATE TABLE waste_packages (
    id TEXT PRIMARY KEY,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    form TEXT NOT NULL,
    -- JSON: [{"radioisotope", "activity"}], mCi at closure.
    contents TEXT NOT NULL,
    mass DOUBLE PRECISION NOT NULL,
    closed_at TEXT NOT NULL,
    location TEXT NOT NULL,
    description TEXT,
    -- `YYYY-MM-DD` in Brasília, computed with the clearance levels in force when stored or edited.
    release_date TEXT NOT NULL,
    released_at TEXT,
    released_by TEXT REFERENCES users (id),
    dose_rate DOUBLE PRECISION,
    release_notes TEXT,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX waste_packages_facility ON waste_packages (facility_id, id);
CREATE INDEX waste_packages_stored ON waste_packages (release_date) WHERE released_at IS NULL;

-- One row per day whose digests were planned: the instance that inserts it plans them.
CREATE TABLE notice_runs (
    day TEXT PRIMARY KEY,
    planned_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- One digest per facility and day. `status`: pending → sending (claimed by one instance until
-- `claimed_until`) → sent | pending again (retry at `next_attempt_at`) | failed.
CREATE TABLE notice_digests (
    id TEXT PRIMARY KEY,
    day TEXT NOT NULL,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    recipients TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    item_count BIGINT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    claimed_by TEXT,
    claimed_until TEXT,
    last_error TEXT,
    sent_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX notice_digests_day ON notice_digests (day, facility_id);
CREATE INDEX notice_digests_due ON notice_digests (status, next_attempt_at);
