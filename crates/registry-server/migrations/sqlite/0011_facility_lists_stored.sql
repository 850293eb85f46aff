-- Each facility keeps its child lists as the JSON its view shows (addresses, user links with the
-- users' names, e-mails and licences, radioisotopes, practices, image kinds), so a view reads one
-- row instead of five correlated look-ups (docs/benchmarks.md, sixteenth round; PostgreSQL: its
-- migration 0006). The triggers below rebuild a list in the statement that changes one of its
-- rows, so no write can leave a view behind: the child tables stay the record, these columns
-- follow them. `facility_lists` builds the lists, each aggregated from a subquery that orders it:
-- SQLite keeps a subquery's ORDER BY under an aggregate other than count, min or max (`select.c`,
-- tag-select-0230, condition 4) and json_group_array adds rows in the order given, where an ORDER
-- BY inside the aggregate built a temporary B-tree at every evaluation (eleventh round).
ALTER TABLE facilities ADD COLUMN address_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN users_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN isotopes_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN practices_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN image_kinds TEXT;

CREATE VIEW facility_lists AS SELECT f.id,
    (SELECT json_group_array(json_object('street', a.street, 'city', a.city, 'state', a.state,
        'complement', a.complement, 'zipCode', a.zip_code))
        FROM (SELECT street, city, state, complement, zip_code FROM facility_addresses
        WHERE facility_id = f.id ORDER BY position) a) AS address_json,
    (SELECT json_group_array(json_object('_id', fu.user_id, 'responsabilities', json(fu.responsibilities),
        'name', fu.name, 'email', fu.email, 'ANLicenseNumber', fu.an_license_number, 'ANLicenseValidity', fu.an_license_validity,
        'FMLicenseNumber', fu.fm_license_number, 'FMLicenseValidity', fu.fm_license_validity))
        FROM (SELECT m.user_id, m.responsibilities, u.name, u.email, u.an_license_number, u.an_license_validity,
        u.fm_license_number, u.fm_license_validity FROM facility_users m JOIN users u ON u.id = m.user_id
        WHERE m.facility_id = f.id ORDER BY m.position) fu) AS users_json,
    (SELECT json_group_array(json_object('name', r.name, 'quantity', json(printf('%!.17g', r.quantity))))
        FROM (SELECT name, quantity FROM facility_radioisotopes WHERE facility_id = f.id ORDER BY position) r) AS isotopes_json,
    (SELECT json_group_array(p.practice) FROM facility_practices p WHERE p.facility_id = f.id) AS practices_json,
    (SELECT group_concat(i.kind, ',') FROM facility_images i WHERE i.facility_id = f.id) AS image_kinds
FROM facilities f;

UPDATE facilities SET (address_json, users_json, isotopes_json, practices_json, image_kinds) =
    (SELECT address_json, users_json, isotopes_json, practices_json, image_kinds FROM facility_lists l
     WHERE l.id = facilities.id);

-- One trigger per child table and change: the list of that table, for the facility of the row.
CREATE TRIGGER facility_addresses_inserted AFTER INSERT ON facility_addresses BEGIN UPDATE facilities SET address_json = (SELECT address_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_addresses_updated AFTER UPDATE ON facility_addresses BEGIN UPDATE facilities SET address_json = (SELECT address_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_addresses_deleted AFTER DELETE ON facility_addresses BEGIN UPDATE facilities SET address_json = (SELECT address_json FROM facility_lists WHERE id = OLD.facility_id) WHERE id = OLD.facility_id; END;
CREATE TRIGGER facility_users_inserted AFTER INSERT ON facility_users BEGIN UPDATE facilities SET users_json = (SELECT users_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_users_updated AFTER UPDATE ON facility_users BEGIN UPDATE facilities SET users_json = (SELECT users_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_users_deleted AFTER DELETE ON facility_users BEGIN UPDATE facilities SET users_json = (SELECT users_json FROM facility_lists WHERE id = OLD.facility_id) WHERE id = OLD.facility_id; END;
CREATE TRIGGER facility_radioisotopes_inserted AFTER INSERT ON facility_radioisotopes BEGIN UPDATE facilities SET isotopes_json = (SELECT isotopes_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_radioisotopes_updated AFTER UPDATE ON facility_radioisotopes BEGIN UPDATE facilities SET isotopes_json = (SELECT isotopes_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_radioisotopes_deleted AFTER DELETE ON facility_radioisotopes BEGIN UPDATE facilities SET isotopes_json = (SELECT isotopes_json FROM facility_lists WHERE id = OLD.facility_id) WHERE id = OLD.facility_id; END;
CREATE TRIGGER facility_practices_inserted AFTER INSERT ON facility_practices BEGIN UPDATE facilities SET practices_json = (SELECT practices_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_practices_updated AFTER UPDATE ON facility_practices BEGIN UPDATE facilities SET practices_json = (SELECT practices_json FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_practices_deleted AFTER DELETE ON facility_practices BEGIN UPDATE facilities SET practices_json = (SELECT practices_json FROM facility_lists WHERE id = OLD.facility_id) WHERE id = OLD.facility_id; END;
CREATE TRIGGER facility_images_inserted AFTER INSERT ON facility_images BEGIN UPDATE facilities SET image_kinds = (SELECT image_kinds FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_images_updated AFTER UPDATE ON facility_images BEGIN UPDATE facilities SET image_kinds = (SELECT image_kinds FROM facility_lists WHERE id = NEW.facility_id) WHERE id = NEW.facility_id; END;
CREATE TRIGGER facility_images_deleted AFTER DELETE ON facility_images BEGIN UPDATE facilities SET image_kinds = (SELECT image_kinds FROM facility_lists WHERE id = OLD.facility_id) WHERE id = OLD.facility_id; END;

-- A user's name, e-mail or licences show in the views of the facilities the user is linked to.
CREATE TRIGGER users_shown_changed AFTER UPDATE OF name, email, an_license_number, an_license_validity,
    fm_license_number, fm_license_validity ON users
    WHEN (NEW.name, NEW.email, NEW.an_license_number, NEW.an_license_validity, NEW.fm_license_number, NEW.fm_license_validity)
        IS NOT (OLD.name, OLD.email, OLD.an_license_number, OLD.an_license_validity, OLD.fm_license_number, OLD.fm_license_validity)
BEGIN
    UPDATE facilities SET users_json = (SELECT users_json FROM facility_lists l WHERE l.id = facilities.id)
    WHERE id IN (SELECT facility_id FROM facility_users WHERE user_id = NEW.id);
END;
