-- A facility's addresses, user links and radioisotopes, stored in the order of their primary key
-- (WITHOUT ROWID): reading one facility's rows is then one seek into the table, where a rowid
-- table took a seek into its primary-key index and one more into the table for every row. The
-- facility views read these three for every facility of a page, a search or a by-id read
-- (docs/benchmarks.md, "tenth round"). Practices and image kinds are already read from their
-- primary-key index alone; images keep their rowid table, as their rows hold the image itself.
-- Nothing references these tables, and nothing reads their rowid.

CREATE TABLE facility_addresses_clustered (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    position INTEGER NOT NULL,
    street TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    complement TEXT,
    zip_code TEXT,
    city_key TEXT NOT NULL,
    state_key TEXT NOT NULL,
    PRIMARY KEY (facility_id, position)
) STRICT, WITHOUT ROWID;
INSERT INTO facility_addresses_clustered
    (facility_id, position, street, city, state, complement, zip_code, city_key, state_key)
SELECT facility_id, position, street, city, state, complement, zip_code, city_key, state_key
FROM facility_addresses;
DROP TABLE facility_addresses;
ALTER TABLE facility_addresses_clustered RENAME TO facility_addresses;
CREATE INDEX facility_addresses_city ON facility_addresses (city_key);
CREATE INDEX facility_addresses_state ON facility_addresses (state_key);

CREATE TABLE facility_users_clustered (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    position INTEGER NOT NULL,
    responsibilities TEXT NOT NULL,
    PRIMARY KEY (facility_id, user_id)
) STRICT, WITHOUT ROWID;
INSERT INTO facility_users_clustered (facility_id, user_id, position, responsibilities)
SELECT facility_id, user_id, position, responsibilities FROM facility_users;
DROP TABLE facility_users;
ALTER TABLE facility_users_clustered RENAME TO facility_users;
CREATE INDEX facility_users_user ON facility_users (user_id);

CREATE TABLE facility_radioisotopes_clustered (
    facility_id TEXT NOT NULL REFERENCES facilities (id),
    name TEXT NOT NULL,
    position INTEGER NOT NULL,
    quantity REAL NOT NULL,
    PRIMARY KEY (facility_id, name)
) STRICT, WITHOUT ROWID;
INSERT INTO facility_radioisotopes_clustered (facility_id, name, position, quantity)
SELECT facility_id, name, position, quantity FROM facility_radioisotopes;
DROP TABLE facility_radioisotopes;
ALTER TABLE facility_radioisotopes_clustered RENAME TO facility_radioisotopes;
CREATE INDEX facility_radioisotopes_name ON facility_radioisotopes (name);
