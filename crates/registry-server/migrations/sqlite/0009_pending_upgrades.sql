-- Data upgrades that need the server's own rules (its accent folding, say), which SQL cannot
-- apply: a migration records one here, and the server runs it at start in the transaction that
-- deletes its row (`store/sql/upgrades.rs`).
CREATE TABLE pending_upgrades (
    name TEXT PRIMARY KEY
) STRICT;

-- Search texts keep their parts (name, company name, cnpj, each city; a user's name and e-mail;
-- a document's name, conclusion and code) apart, so that a term never matches across two of
-- them. Only a database that holds texts written before needs it.
INSERT INTO pending_upgrades (name)
SELECT 'separated_search_text'
WHERE EXISTS (SELECT 1 FROM facilities) OR EXISTS (SELECT 1 FROM users)
   OR EXISTS (SELECT 1 FROM documents);
