-- How many facilities hold each trigram of the search index (`doc` of term), read to pick the
-- rarest trigrams of a search term (store/sqlite_reads.rs). A view of the FTS5 index: it stores
-- nothing of its own.
CREATE VIRTUAL TABLE facility_search_vocab USING fts5vocab(facility_search, 'row');
