-- Equipment is searched (`q` of a facility's equipment list) case- and accent-insensitively, as every
-- other list's `q`: through a search text the server writes with its accent folding
-- (`text::search_text` of manufacturer, model, serial and patrimonial numbers and localization), which
-- SQL cannot compute: the rows written before are written by the data upgrade at start.
ALTER TABLE equipment ADD COLUMN search_text text NOT NULL DEFAULT '';

INSERT INTO pending_upgrades (name)
SELECT 'equipment_search_text' WHERE EXISTS (SELECT 1 FROM equipment);
