-- Each run of white space (a non-breaking space, a tab, two spaces) is one space to searches and
-- to the city and state filters (`text::search_key`): the server writes again, at start, the
-- search texts and the address keys written before (`store/sql/upgrades.rs`).
-- (SQLite: its migration 0014.)
-- Only a database with users holds anything they wrote.
INSERT INTO pending_upgrades (name)
SELECT 'folded_white_space' WHERE EXISTS (SELECT 1 FROM users);
