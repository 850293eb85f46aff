-- PostgreSQL baseline: the whole registry schema (users, groups, facilities and their children,
-- audit, equipment, QC, documents, radioactive material, notices). Native types: timestamptz
-- for instants, date for calendar days, jsonb for JSON, boolean for flags; CHECK constraints
-- hold each column to the wire values of its enum (registry-core). Ids stay text: UUID v7
-- strings made by the server, plus fixed catalogue ids, and every API carries them as text.
-- Append-only from here: a change is a new numbered file.


CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    telephone TEXT,
    cpf TEXT,
    roles JSONB NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    an_license_number TEXT,
    an_license_validity DATE,
    fm_license_number TEXT,
    fm_license_validity DATE,
    password_hash TEXT NOT NULL,
    token_version BIGINT NOT NULL DEFAULT 0,
    search_text TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE facility_groups (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    description TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE facilities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    company_name TEXT NOT NULL,
    cnpj TEXT NOT NULL,
    telephone TEXT NOT NULL,
    department TEXT NOT NULL CHECK (department IN ('Medicina Nuclear', 'Radiodiagnóstico')),
    group_id TEXT REFERENCES facility_groups (id),
    cnen_registry TEXT,
    search_text TEXT NOT NULL,
    version BIGINT NOT NULL CHECK (version > 0),
    archived_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX facilities_live_cnpj ON facilities (cnpj, department) WHERE archived_at IS NULL;
CREATE INDEX facilities_live_order ON facilities (id) WHERE archived_at IS NULL;
CREATE INDEX facilities_live_department ON facilities (department, id) WHERE archived_at IS NULL;
CREATE INDEX facilities_group ON facilities (group_id);

CREATE TABLE facility_addresses (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    position BIGINT NOT NULL,
    street TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    complement TEXT,
    zip_code TEXT,
    city_key TEXT NOT NULL,
    state_key TEXT NOT NULL,
    PRIMARY KEY (facility_id, position)
);
CREATE INDEX facility_addresses_city ON facility_addresses (city_key);
CREATE INDEX facility_addresses_state ON facility_addresses (state_key);

CREATE TABLE facility_users (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    position BIGINT NOT NULL,
    responsibilities JSONB NOT NULL,
    PRIMARY KEY (facility_id, user_id)
);
CREATE INDEX facility_users_user ON facility_users (user_id);

CREATE TABLE facility_radioisotopes (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    name TEXT NOT NULL,
    position BIGINT NOT NULL,
    quantity DOUBLE PRECISION NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (facility_id, name)
);
CREATE INDEX facility_radioisotopes_name ON facility_radioisotopes (name);

CREATE TABLE facility_practices (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    practice TEXT NOT NULL CHECK (practice IN ('Terapia com Internação', 'Terapia Ambulatorial', 'Diagnóstico')),
    PRIMARY KEY (facility_id, practice)
);
CREATE INDEX facility_practices_practice ON facility_practices (practice);

CREATE TABLE facility_images (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    kind TEXT NOT NULL CHECK (kind IN ('logo', 'background')),
    content_type TEXT NOT NULL,
    data BYTEA NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (facility_id, kind)
);

CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    entity TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    action TEXT NOT NULL,
    actor_id TEXT,
    at TIMESTAMPTZ NOT NULL,
    before_json JSONB,
    after_json JSONB,
    role_changes JSONB
);
CREATE INDEX audit_events_entity ON audit_events (entity, entity_id, id);

CREATE TABLE login_failures (
    email TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    window_start TIMESTAMPTZ NOT NULL
);

CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ
);

-- Equipment types, QC test types, equipment of a facility and QC test records.

CREATE TABLE equipment_types (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    description TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- The seeded types of product.md §4, with fixed ids so every installation agrees.
INSERT INTO equipment_types (id, name, name_key, description, created_at, updated_at) VALUES
    ('00000000-0000-7000-8000-000000000001', 'Calibrador de Doses', 'calibrador de doses', 'Activímetro (dose calibrator)', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('00000000-0000-7000-8000-000000000002', 'Gama Câmara', 'gama camara', 'Gamma camera', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('00000000-0000-7000-8000-000000000003', 'Contador Geiger', 'contador geiger', 'Geiger-Müller survey meter', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('00000000-0000-7000-8000-000000000004', 'PET/CT', 'pet/ct', 'PET/CT scanner', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('00000000-0000-7000-8000-000000000005', 'Raios X', 'raios x', 'X-ray unit', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('00000000-0000-7000-8000-000000000006', 'Tomógrafo', 'tomografo', 'CT scanner', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('00000000-0000-7000-8000-000000000007', 'Mamógrafo', 'mamografo', 'Mammography unit', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');

CREATE TABLE test_types (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    equipment_type_id TEXT NOT NULL REFERENCES equipment_types (id),
    expiration_in_days BIGINT NOT NULL CHECK (expiration_in_days > 0),
    description TEXT,
    kind TEXT CHECK (kind IN ('constancy', 'accuracy', 'precision', 'linearity', 'geometry', 'reproducibility', 'recorded')),
    tolerances JSONB,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
-- A test name is unique within its equipment type (case- and accent-insensitive).
CREATE UNIQUE INDEX test_types_equipment_type ON test_types (equipment_type_id, name_key);

CREATE TABLE equipment (
    id TEXT PRIMARY KEY,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    equipment_type_id TEXT NOT NULL REFERENCES equipment_types (id),
    manufacturer TEXT,
    model TEXT,
    serial_number TEXT,
    patrimonial_number TEXT,
    localization TEXT,
    attributes JSONB NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    archived_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX equipment_facility ON equipment (facility_id, id);
CREATE INDEX equipment_type ON equipment (equipment_type_id);

CREATE TABLE qc_tests (
    id TEXT PRIMARY KEY,
    equipment_id TEXT NOT NULL REFERENCES equipment (id),
    test_type_id TEXT NOT NULL REFERENCES test_types (id),
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    date DATE NOT NULL,
    performed_by TEXT NOT NULL REFERENCES users (id),
    conclusion TEXT NOT NULL CHECK (conclusion IN ('Satisfatório', 'Satisfatório com observações', 'Insatisfatório')),
    measurements JSONB,
    notes TEXT,
    figures JSONB,
    document_id TEXT,
    archived_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
-- Live records only: the history of a test on an equipment, and the last date of each test
-- (the due computation reads MAX(date) per equipment and test type from this index).
CREATE INDEX qc_tests_history ON qc_tests (equipment_id, test_type_id, date) WHERE archived_at IS NULL;
CREATE INDEX qc_tests_facility ON qc_tests (facility_id);

-- Documents (product.md §5): the record, every stored file version, comments and durable e-mail

CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    equipment_id TEXT REFERENCES equipment (id),
    test_id TEXT REFERENCES qc_tests (id),
    date DATE NOT NULL,
    validity DATE NOT NULL,
    conclusion TEXT,
    status TEXT NOT NULL CHECK (status IN ('Em andamento', 'Corrigir', 'Falta assinar', 'Assinado', 'Liberado')),
    -- The current row of document_files.
    file_version BIGINT NOT NULL,
    search_text TEXT NOT NULL,
    uploaded_by TEXT NOT NULL REFERENCES users (id),
    uploaded_at TIMESTAMPTZ NOT NULL,
    signed_by TEXT REFERENCES users (id),
    signed_at TIMESTAMPTZ,
    code TEXT,
    signature TEXT,
    liberated_by TEXT REFERENCES users (id),
    liberated_at TIMESTAMPTZ,
    archived_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX documents_code ON documents (code);
CREATE INDEX documents_live_order ON documents (id) WHERE archived_at IS NULL;
CREATE INDEX documents_facility ON documents (facility_id, id);
CREATE INDEX documents_status ON documents (status, id);

-- Content-addressed: `sha256` names the object in the store; a new file adds a version.
CREATE TABLE document_files (
    document_id TEXT NOT NULL REFERENCES documents (id),
    version BIGINT NOT NULL,
    name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    uploaded_by TEXT NOT NULL REFERENCES users (id),
    uploaded_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (document_id, version)
);

CREATE TABLE document_comments (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    author_id TEXT NOT NULL REFERENCES users (id),
    text TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX document_comments_document ON document_comments (document_id, id);

-- One row per scheduled e-mail. `status`: pending → sending (claimed by one instance until
-- `claimed_until`) → sent | pending again (retry at `next_attempt_at`) | failed; or cancelled.
CREATE TABLE email_schedules (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    recipients JSONB NOT NULL,
    send_at TIMESTAMPTZ NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'cancelled')),
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    claimed_by TEXT,
    claimed_until TIMESTAMPTZ,
    last_error TEXT,
    sent_at TIMESTAMPTZ,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX email_schedules_due ON email_schedules (status, next_attempt_at);
CREATE INDEX email_schedules_document ON email_schedules (document_id, id);

-- Live facilities per department, kept by the same transactions that create, move and archive
-- facilities, so an unfiltered list answers its total without counting 100,000 rows.
CREATE TABLE facility_counts (
    department TEXT PRIMARY KEY CHECK (department IN ('Medicina Nuclear', 'Radiodiagnóstico')),
    live BIGINT NOT NULL
);
INSERT INTO facility_counts (department, live) VALUES ('Medicina Nuclear', 0), ('Radiodiagnóstico', 0);

-- The latest live QC test of each (equipment, test type) pair and its next due date, kept by the
-- transactions that record, edit or delete tests and that change a test type's period, so that
-- "what is overdue" reads an index on next_due instead of judging every pair. Filled by the server
-- at start when it is empty and tests exist (the date arithmetic differs per backend).
CREATE TABLE qc_last (
    equipment_id TEXT NOT NULL REFERENCES equipment (id),
    test_type_id TEXT NOT NULL REFERENCES test_types (id),
    last_date DATE NOT NULL,
    next_due DATE NOT NULL,
    last_conclusion TEXT CHECK (last_conclusion IN ('Satisfatório', 'Satisfatório com observações', 'Insatisfatório')),
    PRIMARY KEY (equipment_id, test_type_id)
);
CREATE INDEX qc_last_next_due ON qc_last (next_due);

-- QC tests the registry computes (docs/qc.md): how a test type is computed and its tolerances,
-- the figures computed for a record, and the conclusion of the latest test of each pair (the



-- Seeds applied once per database (the QC catalogue is seeded at start, when enabled, and never
-- again: test types edited or deleted afterwards stay so).
CREATE TABLE catalogue_seeds (
    name TEXT PRIMARY KEY,
    seeded_at TIMESTAMPTZ NOT NULL
);

-- Radioactive material received, waste in decay storage, and the daily notice digests

CREATE TABLE material_receipts (
    id TEXT PRIMARY KEY,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    radioisotope TEXT NOT NULL,
    -- mCi as declared at activity_reference_at, and decayed to received_at (what counts).
    activity DOUBLE PRECISION NOT NULL,
    activity_reference_at TIMESTAMPTZ NOT NULL,
    activity_at_receipt DOUBLE PRECISION NOT NULL,
    supplier TEXT NOT NULL,
    lot TEXT,
    received_by TEXT NOT NULL,
    received_at TIMESTAMPTZ NOT NULL,
    -- The ISO week in Brasília, `YYYY-Www`.
    week TEXT NOT NULL,
    over_quantity BOOLEAN NOT NULL DEFAULT FALSE,
    notes TEXT,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX material_receipts_week ON material_receipts (facility_id, week, radioisotope);
CREATE INDEX material_receipts_facility ON material_receipts (facility_id, id);
CREATE INDEX material_receipts_over ON material_receipts (week) WHERE over_quantity;

CREATE TABLE waste_packages (
    id TEXT PRIMARY KEY,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    form TEXT NOT NULL CHECK (form IN ('Sólido', 'Líquido')),
    -- JSON: [{"radioisotope", "activity"}], mCi at closure.
    contents JSONB NOT NULL,
    mass DOUBLE PRECISION NOT NULL,
    closed_at TIMESTAMPTZ NOT NULL,
    location TEXT NOT NULL,
    description TEXT,
    -- `YYYY-MM-DD` in Brasília, computed with the clearance levels in force when stored or edited.
    release_date DATE NOT NULL,
    released_at TIMESTAMPTZ,
    released_by TEXT REFERENCES users (id),
    dose_rate DOUBLE PRECISION,
    release_notes TEXT,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX waste_packages_facility ON waste_packages (facility_id, id);
CREATE INDEX waste_packages_stored ON waste_packages (release_date) WHERE released_at IS NULL;

-- One row per day whose digests were planned: the instance that inserts it plans them.
CREATE TABLE notice_runs (
    day DATE PRIMARY KEY,
    planned_by TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

-- One digest per facility and day. `status`: pending → sending (claimed by one instance until
-- `claimed_until`) → sent | pending again (retry at `next_attempt_at`) | failed.
CREATE TABLE notice_digests (
    id TEXT PRIMARY KEY,
    day DATE NOT NULL,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    recipients JSONB NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    item_count BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    claimed_by TEXT,
    claimed_until TIMESTAMPTZ,
    last_error TEXT,
    sent_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX notice_digests_day ON notice_digests (day, facility_id);
CREATE INDEX notice_digests_due ON notice_digests (status, next_attempt_at);
