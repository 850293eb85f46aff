-- The kept lists of a facility (migration 0006) are rebuilt one list at a time: a statement that
-- changes addresses rebuilds `address_json` only, a user's new name `users_json` only, an image
-- `image_kinds` only. Before, every such statement rebuilt all five lists through five SQL
-- functions that PostgreSQL plans again on every call (≈ 0.6 ms a statement): a facility create
-- writes four child tables, and it holds the rank lock while it does (docs/benchmarks.md,
-- twentieth round). The lists are built by the statements below, which PL/pgSQL plans once per
-- connection. Lock order and the row lock in a statement of its own are as in 0006: the list is
-- read by the statement after the lock, which sees what a writer waited for committed.
CREATE OR REPLACE FUNCTION facility_children_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids text[] := ARRAY(SELECT DISTINCT facility_id FROM changed);
BEGIN
    PERFORM 1 FROM facilities WHERE id = ANY (ids) ORDER BY id FOR NO KEY UPDATE;
    CASE TG_TABLE_NAME
    WHEN 'facility_addresses' THEN
        UPDATE facilities f SET address_json = (
            SELECT coalesce(json_agg(json_build_object('street', a.street, 'city', a.city, 'state', a.state,
                'complement', a.complement, 'zipCode', a.zip_code) ORDER BY a.position), '[]'::json)
            FROM facility_addresses a WHERE a.facility_id = f.id)
        WHERE f.id = ANY (ids);
    WHEN 'facility_users' THEN
        PERFORM facility_users_rebuild(ids);
    WHEN 'facility_radioisotopes' THEN
        UPDATE facilities f SET isotopes_json = (
            SELECT coalesce(json_agg(json_build_object('name', r.name, 'quantity', r.quantity) ORDER BY r.position), '[]'::json)
            FROM facility_radioisotopes r WHERE r.facility_id = f.id)
        WHERE f.id = ANY (ids);
    WHEN 'facility_practices' THEN
        UPDATE facilities f SET practices_json = (
            SELECT coalesce(json_agg(p.practice), '[]'::json) FROM facility_practices p WHERE p.facility_id = f.id)
        WHERE f.id = ANY (ids);
    END CASE;
    RETURN NULL;
END $$;

-- The user links of the facilities `ids`, already locked by the caller, with each user's name,
-- e-mail, licences and being active (migration 0007's shape).
CREATE FUNCTION facility_users_rebuild(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE facilities f SET users_json = (
        SELECT coalesce(json_agg(json_build_object('_id', fu.user_id, 'responsabilities', fu.responsibilities,
            'name', u.name, 'email', u.email, 'active', u.active, 'ANLicenseNumber', u.an_license_number,
            'ANLicenseValidity', to_char(u.an_license_validity, 'YYYY-MM-DD'),
            'FMLicenseNumber', u.fm_license_number,
            'FMLicenseValidity', to_char(u.fm_license_validity, 'YYYY-MM-DD')) ORDER BY fu.position), '[]'::json)
        FROM facility_users fu JOIN users u ON u.id = fu.user_id WHERE fu.facility_id = f.id)
    WHERE f.id = ANY (ids);
END $$;

CREATE OR REPLACE FUNCTION users_shown_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids text[] := ARRAY(
        SELECT DISTINCT fu.facility_id FROM facility_users fu
        JOIN new_rows n ON n.id = fu.user_id JOIN old_rows o ON o.id = n.id
        WHERE (n.name, n.email, n.active, n.an_license_number, n.an_license_validity, n.fm_license_number, n.fm_license_validity)
            IS DISTINCT FROM
              (o.name, o.email, o.active, o.an_license_number, o.an_license_validity, o.fm_license_number, o.fm_license_validity));
BEGIN
    IF cardinality(ids) > 0 THEN
        PERFORM 1 FROM facilities WHERE id = ANY (ids) ORDER BY id FOR NO KEY UPDATE;
        PERFORM facility_users_rebuild(ids);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION facility_images_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fid text := CASE WHEN TG_OP = 'DELETE' THEN OLD.facility_id ELSE NEW.facility_id END;
BEGIN
    PERFORM 1 FROM facilities WHERE id = fid FOR NO KEY UPDATE;
    UPDATE facilities f SET image_kinds = (
        SELECT string_agg(i.kind, ',') FROM facility_images i WHERE i.facility_id = f.id)
    WHERE f.id = fid;
    RETURN NULL;
END $$;

DROP FUNCTION facility_lists_rebuild(text[]);
DROP FUNCTION facility_address_json(text);
DROP FUNCTION facility_users_json(text);
DROP FUNCTION facility_isotopes_json(text);
DROP FUNCTION facility_practices_json(text);
DROP FUNCTION facility_image_kinds(text);
