-- Users, groups, facilities with their addresses, user links, radioisotopes, practices and images,
-- the audit log, failed-login counters and password-recovery tokens.
-- Portable DDL: the same file runs on SQLite and PostgreSQL. Timestamps are RFC 3339 UTC text
-- with fixed precision (so they sort as text); JSON is stored as text; booleans as 0/1.

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    telephone TEXT,
    cpf TEXT,
    roles TEXT NOT NULL,
    active BIGINT NOT NULL DEFAULT 1,
    an_license_number TEXT,
    an_license_validity TEXT,
    fm_license_number TEXT,
    fm_license_validity TEXT,
    password_hash TEXT NOT NULL,
    token_version BIGINT NOT NULL DEFAULT 0,
    search_text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE facility_groups (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    description TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE facilities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    company_name TEXT NOT NULL,
    cnpj TEXT NOT NULL,
    telephone TEXT NOT NULL,
    department TEXT NOT NULL,
    group_id TEXT REFERENCES facility_groups (id),
    cnen_registry TEXT,
    search_text TEXT NOT NULL,
    version BIGINT NOT NULL,
    archived_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
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
    responsibilities TEXT NOT NULL,
    PRIMARY KEY (facility_id, user_id)
);
CREATE INDEX facility_users_user ON facility_users (user_id);

CREATE TABLE facility_radioisotopes (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    name TEXT NOT NULL,
    position BIGINT NOT NULL,
    quantity DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (facility_id, name)
);
CREATE INDEX facility_radioisotopes_name ON facility_radioisotopes (name);

CREATE TABLE facility_practices (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    practice TEXT NOT NULL,
    PRIMARY KEY (facility_id, practice)
);
CREATE INDEX facility_practices_practice ON facility_practices (practice);

CREATE TABLE facility_images (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    kind TEXT NOT NULL,
    content_type TEXT NOT NULL,
    data BYTEA NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (facility_id, kind)
);

CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    entity TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    action TEXT NOT NULL,
    actor_id TEXT,
    at TEXT NOT NULL,
    before_json TEXT,
    after_json TEXT,
    role_changes TEXT
);
CREATE INDEX audit_events_entity ON audit_events (entity, entity_id, id);

CREATE TABLE login_failures (
    email TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    window_start TEXT NOT NULL
);

CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    expires_at TEXT NOT NULL,
    used_at TEXT
);
