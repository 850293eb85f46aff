-- Documents (product.md §5): the record, every stored file version, comments and durable e-mail
-- schedules. Portable DDL (SQLite and PostgreSQL), as in 0001.

CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    equipment_id TEXT REFERENCES equipment (id),
    test_id TEXT REFERENCES qc_tests (id),
    date TEXT NOT NULL,
    validity TEXT NOT NULL,
    conclusion TEXT,
    status TEXT NOT NULL,
    -- The current row of document_files.
    file_version BIGINT NOT NULL,
    search_text TEXT NOT NULL,
    uploaded_by TEXT NOT NULL REFERENCES users (id),
    uploaded_at TEXT NOT NULL,
    signed_by TEXT REFERENCES users (id),
    signed_at TEXT,
    code TEXT,
    signature TEXT,
    liberated_by TEXT REFERENCES users (id),
    liberated_at TEXT,
    archived_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
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
    uploaded_at TEXT NOT NULL,
    PRIMARY KEY (document_id, version)
);

CREATE TABLE document_comments (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    author_id TEXT NOT NULL REFERENCES users (id),
    text TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX document_comments_document ON document_comments (document_id, id);

-- One row per scheduled e-mail. `status`: pending → sending (claimed by one instance until
-- `claimed_until`) → sent | pending again (retry at `next_attempt_at`) | failed; or cancelled.
CREATE TABLE email_schedules (
    id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id),
    recipients TEXT NOT NULL,
    send_at TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    claimed_by TEXT,
    claimed_until TEXT,
    last_error TEXT,
    sent_at TEXT,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX email_schedules_due ON email_schedules (status, next_attempt_at);
CREATE INDEX email_schedules_document ON email_schedules (document_id, id);
