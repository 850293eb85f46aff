-- Each facility keeps its child lists as the JSON its view shows (addresses, user links with the
-- users' names, e-mails and licences, radioisotopes, practices, image kinds), so a page of 20
-- views reads 20 rows instead of making 100 correlated lookups (docs/benchmarks.md, fifteenth
-- round). The triggers below rebuild a facility's lists in the statement that changes a child, so
-- no write can leave a view behind: the child tables stay the record, these columns follow them.
-- `json`, not `jsonb`: read back as written, with no conversion on the read path.
ALTER TABLE facilities ADD COLUMN address_json json NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN users_json json NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN isotopes_json json NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN practices_json json NOT NULL DEFAULT '[]';
ALTER TABLE facilities ADD COLUMN image_kinds text;

CREATE FUNCTION facility_address_json(fid text) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT coalesce(json_agg(json_build_object('street', a.street, 'city', a.city, 'state', a.state,
        'complement', a.complement, 'zipCode', a.zip_code) ORDER BY a.position), '[]'::json)
    FROM facility_addresses a WHERE a.facility_id = fid
$$;

CREATE FUNCTION facility_users_json(fid text) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT coalesce(json_agg(json_build_object('_id', fu.user_id, 'responsabilities', fu.responsibilities,
        'name', u.name, 'email', u.email, 'ANLicenseNumber', u.an_license_number,
        'ANLicenseValidity', to_char(u.an_license_validity, 'YYYY-MM-DD'),
        'FMLicenseNumber', u.fm_license_number,
        'FMLicenseValidity', to_char(u.fm_license_validity, 'YYYY-MM-DD')) ORDER BY fu.position), '[]'::json)
    FROM facility_users fu JOIN users u ON u.id = fu.user_id WHERE fu.facility_id = fid
$$;

CREATE FUNCTION facility_isotopes_json(fid text) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT coalesce(json_agg(json_build_object('name', r.name, 'quantity', r.quantity) ORDER BY r.position), '[]'::json)
    FROM facility_radioisotopes r WHERE r.facility_id = fid
$$;

CREATE FUNCTION facility_practices_json(fid text) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT coalesce(json_agg(p.practice), '[]'::json) FROM facility_practices p WHERE p.facility_id = fid
$$;

CREATE FUNCTION facility_image_kinds(fid text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT string_agg(i.kind, ',') FROM facility_images i WHERE i.facility_id = fid
$$;

-- Rebuilds every kept list of the facilities `ids` from the child tables and the users. The rows
-- are locked first, in a statement of their own: a writer of the same facility (which holds its
-- row until it commits) is waited for, and the lists are then read by the next statement, which
-- sees what that writer committed. (In one UPDATE, PostgreSQL would wait for the row and then
-- write lists read before the wait, putting back what the other writer had just replaced.)
CREATE FUNCTION facility_lists_rebuild(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM facilities WHERE id = ANY (ids) ORDER BY id FOR NO KEY UPDATE;
    UPDATE facilities SET address_json = facility_address_json(id), users_json = facility_users_json(id),
        isotopes_json = facility_isotopes_json(id), practices_json = facility_practices_json(id),
        image_kinds = facility_image_kinds(id)
    WHERE id = ANY (ids);
END $$;

SELECT facility_lists_rebuild(ARRAY(SELECT id FROM facilities));

-- Addresses, user links, radioisotopes and practices: statement triggers, so the facilities a
-- statement touched (its transition table `changed`) are rebuilt once each, however many of their
-- rows it wrote.
CREATE FUNCTION facility_children_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM facility_lists_rebuild(ARRAY(SELECT DISTINCT facility_id FROM changed));
    RETURN NULL;
END $$;

DO $$
DECLARE
    child text;
BEGIN
    FOREACH child IN ARRAY ARRAY['facility_addresses', 'facility_users', 'facility_radioisotopes', 'facility_practices'] LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed '
            'FOR EACH STATEMENT EXECUTE FUNCTION facility_children_changed()', child || '_inserted', child);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed '
            'FOR EACH STATEMENT EXECUTE FUNCTION facility_children_changed()', child || '_updated', child);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed '
            'FOR EACH STATEMENT EXECUTE FUNCTION facility_children_changed()', child || '_deleted', child);
    END LOOP;
END $$;

-- Images: a row trigger (a transition table would copy the image bytes).
CREATE FUNCTION facility_images_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM facility_lists_rebuild(ARRAY[CASE WHEN TG_OP = 'DELETE' THEN OLD.facility_id ELSE NEW.facility_id END]);
    RETURN NULL;
END $$;

CREATE TRIGGER facility_images_changed AFTER INSERT OR UPDATE OR DELETE ON facility_images
    FOR EACH ROW EXECUTE FUNCTION facility_images_changed();

-- A user's name, e-mail or licences show in the view of every facility the user is linked to.
-- Lock order: a user's writer locks the user's row (`FOR UPDATE`) and then, here, those
-- facilities; a facility's writer that links users shares their rows (`FOR KEY SHARE`) before it
-- locks the facility's. So a link and a rename wait for each other in one order, and whichever
-- comes second rebuilds the lists with what the first wrote.
CREATE FUNCTION users_shown_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM facility_lists_rebuild(ARRAY(
        SELECT DISTINCT fu.facility_id FROM facility_users fu
        JOIN new_rows n ON n.id = fu.user_id JOIN old_rows o ON o.id = n.id
        WHERE (n.name, n.email, n.an_license_number, n.an_license_validity, n.fm_license_number, n.fm_license_validity)
            IS DISTINCT FROM
              (o.name, o.email, o.an_license_number, o.an_license_validity, o.fm_license_number, o.fm_license_validity)
    ));
    RETURN NULL;
END $$;

CREATE TRIGGER users_shown_changed AFTER UPDATE ON users
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION users_shown_changed();
