-- Equipment types, QC test types, equipment of a facility and QC test records.
-- Portable DDL (SQLite and PostgreSQL), as in 0001.

CREATE TABLE equipment_types (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    description TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- The seeded types of product.md §4, with fixed ids so every installation agrees.
INSERT INTO equipment_types (id, name, name_key, description, created_at, updated_at) VALUES
    ('00000000-0000-7000-8000-000000000001', 'Calibrador de Doses', 'calibrador de doses', 'Activímetro (dose calibrator)', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('00000000-0000-7000-8000-000000000002', 'Gama Câmara', 'gama camara', 'Gamma camera', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('00000000-0000-7000-8000-000000000003', 'Contador Geiger', 'contador geiger', 'Geiger-Müller survey meter', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('00000000-0000-7000-8000-000000000004', 'PET/CT', 'pet/ct', 'PET/CT scanner', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('00000000-0000-7000-8000-000000000005', 'Raios X', 'raios x', 'X-ray unit', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('00000000-0000-7000-8000-000000000006', 'Tomógrafo', 'tomografo', 'CT scanner', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'),
    ('00000000-0000-7000-8000-000000000007', 'Mamógrafo', 'mamografo', 'Mammography unit', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z');

CREATE TABLE test_types (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    equipment_type_id TEXT NOT NULL REFERENCES equipment_types (id),
    expiration_in_days BIGINT NOT NULL,
    description TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
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
    attributes TEXT NOT NULL,
    active BIGINT NOT NULL DEFAULT 1,
    archived_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX equipment_facility ON equipment (facility_id, id);
CREATE INDEX equipment_type ON equipment (equipment_type_id);

CREATE TABLE qc_tests (
    id TEXT PRIMARY KEY,
    equipment_id TEXT NOT NULL REFERENCES equipment (id),
    test_type_id TEXT NOT NULL REFERENCES test_types (id),
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    date TEXT NOT NULL,
    performed_by TEXT NOT NULL REFERENCES users (id),
    conclusion TEXT NOT NULL,
    measurements TEXT,
    notes TEXT,
    document_id TEXT,
    archived_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
-- Live records only: the history of a test on an equipment, and the last date of each test
-- (the due computation reads MAX(date) per equipment and test type from this index).
CREATE INDEX qc_tests_history ON qc_tests (equipment_id, test_type_id, date) WHERE archived_at IS NULL;
CREATE INDEX qc_tests_facility ON qc_tests (facility_id);
