-- Each user link in a facility's view says whether the user is active. A deactivated user stays
-- linked (the facility's history keeps them), but no change of the facility's links is accepted
-- while they are (`user_inactive`): a client that sends the links it read back sees why in them.
-- (PostgreSQL: its migration 0007.) The view and the trigger of 0011, with `active`.
DROP VIEW facility_lists;
CREATE VIEW facility_lists AS SELECT f.id,
    (SELECT json_group_array(json_object('street', a.street, 'city', a.city, 'state', a.state,
        'complement', a.complement, 'zipCode', a.zip_code))
        FROM (SELECT street, city, state, complement, zip_code FROM facility_addresses
        WHERE facility_id = f.id ORDER BY position) a) AS address_json,
    (SELECT json_group_array(json_object('_id', fu.user_id, 'responsabilities', json(fu.responsibilities),
        'name', fu.name, 'email', fu.email, 'active', json(CASE WHEN fu.active THEN 'true' ELSE 'false' END),
        'ANLicenseNumber', fu.an_license_number, 'ANLicenseValidity', fu.an_license_validity,
        'FMLicenseNumber', fu.fm_license_number, 'FMLicenseValidity', fu.fm_license_validity))
        FROM (SELECT m.user_id, m.responsibilities, u.name, u.email, u.active, u.an_license_number, u.an_license_validity,
        u.fm_license_number, u.fm_license_validity FROM facility_users m JOIN users u ON u.id = m.user_id
        WHERE m.facility_id = f.id ORDER BY m.position) fu) AS users_json,
    (SELECT json_group_array(json_object('name', r.name, 'quantity', json(printf('%!.17g', r.quantity))))
        FROM (SELECT name, quantity FROM facility_radioisotopes WHERE facility_id = f.id ORDER BY position) r) AS isotopes_json,
    (SELECT json_group_array(p.practice) FROM facility_practices p WHERE p.facility_id = f.id) AS practices_json,
    (SELECT group_concat(i.kind, ',') FROM facility_images i WHERE i.facility_id = f.id) AS image_kinds
FROM facilities f;

DROP TRIGGER users_shown_changed;
CREATE TRIGGER users_shown_changed AFTER UPDATE OF name, email, active, an_license_number, an_license_validity,
    fm_license_number, fm_license_validity ON users
    WHEN (NEW.name, NEW.email, NEW.active, NEW.an_license_number, NEW.an_license_validity, NEW.fm_license_number, NEW.fm_license_validity)
        IS NOT (OLD.name, OLD.email, OLD.active, OLD.an_license_number, OLD.an_license_validity, OLD.fm_license_number, OLD.fm_license_validity)
BEGIN
    UPDATE facilities SET users_json = (SELECT users_json FROM facility_lists l WHERE l.id = facilities.id)
    WHERE id IN (SELECT facility_id FROM facility_users WHERE user_id = NEW.id);
END;

UPDATE facilities SET users_json = (SELECT users_json FROM facility_lists l WHERE l.id = facilities.id)
    WHERE id IN (SELECT facility_id FROM facility_users);
