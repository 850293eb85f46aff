-- Each user link in a facility's view says whether the user is active. A deactivated user stays
-- linked (the facility's history keeps them), but no change of the facility's links is accepted
-- while they are (`user_inactive`): a client that sends the links it read back sees why in them.
CREATE OR REPLACE FUNCTION facility_users_json(fid text) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT coalesce(json_agg(json_build_object('_id', fu.user_id, 'responsabilities', fu.responsibilities,
        'name', u.name, 'email', u.email, 'active', u.active, 'ANLicenseNumber', u.an_license_number,
        'ANLicenseValidity', to_char(u.an_license_validity, 'YYYY-MM-DD'),
        'FMLicenseNumber', u.fm_license_number,
        'FMLicenseValidity', to_char(u.fm_license_validity, 'YYYY-MM-DD')) ORDER BY fu.position), '[]'::json)
    FROM facility_users fu JOIN users u ON u.id = fu.user_id WHERE fu.facility_id = fid
$$;

-- A user's name, e-mail, licences or being active show in the view of every facility the user
-- is linked to (lock order: migration 0006).
CREATE OR REPLACE FUNCTION users_shown_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM facility_lists_rebuild(ARRAY(
        SELECT DISTINCT fu.facility_id FROM facility_users fu
        JOIN new_rows n ON n.id = fu.user_id JOIN old_rows o ON o.id = n.id
        WHERE (n.name, n.email, n.active, n.an_license_number, n.an_license_validity, n.fm_license_number, n.fm_license_validity)
            IS DISTINCT FROM
              (o.name, o.email, o.active, o.an_license_number, o.an_license_validity, o.fm_license_number, o.fm_license_validity)
    ));
    RETURN NULL;
END $$;

UPDATE facilities f SET users_json = facility_users_json(f.id)
    WHERE EXISTS (SELECT 1 FROM facility_users fu WHERE fu.facility_id = f.id);
