-- A facility's user links and radioisotopes, keyed by their position in the facility's list:
-- the facility views read each list in that order, which the keys of migration 0006 (the user id,
-- the isotope name) did not give, so SQLite sorted both lists again for every facility it read
-- (docs/benchmarks.md, "eleventh round"). The former keys stay unique. Positions are written
-- 0, 1, 2… by every facility write, so each facility's are distinct and the rows move as they are.

CREATE TABLE facility_users_by_position (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    position INTEGER NOT NULL,
    responsibilities TEXT NOT NULL,
    PRIMARY KEY (facility_id, position),
    UNIQUE (facility_id, user_id)
) STRICT, WITHOUT ROWID;
INSERT INTO facility_users_by_position (facility_id, user_id, position, responsibilities)
SELECT facility_id, user_id, position, responsibilities FROM facility_users;
DROP TABLE facility_users;
ALTER TABLE facility_users_by_position RENAME TO facility_users;
CREATE INDEX facility_users_user ON facility_users (user_id);

CREATE TABLE facility_radioisotopes_by_position (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    name TEXT NOT NULL,
    position INTEGER NOT NULL,
    quantity REAL NOT NULL,
    PRIMARY KEY (facility_id, position),
    UNIQUE (facility_id, name)
) STRICT, WITHOUT ROWID;
INSERT INTO facility_radioisotopes_by_position (facility_id, name, position, quantity)
SELECT facility_id, name, position, quantity FROM facility_radioisotopes;
DROP TABLE facility_radioisotopes;
ALTER TABLE facility_radioisotopes_by_position RENAME TO facility_radioisotopes;
CREATE INDEX facility_radioisotopes_name ON facility_radioisotopes (name);
