-- Data upgrades that need the server's own rules (its accent folding, say), which SQL cannot
-- apply: a migration records one here, and the server runs it at start in the transaction that
-- deletes its row (`store/sql/upgrades.rs`).
CREATE TABLE pending_upgrades (
    name text PRIMARY KEY
);

-- Search texts keep their parts (name, company name, cnpj, each city; a user's name and e-mail;
-- a document's name, conclusion and code) apart, so that a term never matches across two of
-- them.
INSERT INTO pending_upgrades (name) VALUES ('separated_search_text');
