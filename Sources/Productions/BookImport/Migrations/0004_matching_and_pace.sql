-- Matching that fails loudly, and asking the book services within their limits (docs/books.md,
-- "The enrich stage" and "Politeness and faults").

-- A row without ISBN is matched by a score (BookCatalog.BookMatcher): below the threshold the
-- book keeps the reader's own fields and is 'unmatched', with an item on the review list. The
-- score and evidence of the match taken (or of the best candidate turned down) are kept.
ALTER TABLE books DROP CONSTRAINT books_enrich_status_check;
ALTER TABLE books ADD CONSTRAINT books_enrich_status_check
    CHECK (enrich_status IN ('enriched', 'not-found', 'failed', 'unmatched'));
ALTER TABLE books
    ADD COLUMN match_score      double precision CHECK (match_score BETWEEN 0 AND 1),
    ADD COLUMN match_evidence   text[],
    -- Open Library's cover id of the book's edition or work (covers are fetched by it: ids are
    -- not limited the way ISBN look-ups are), and the cover URL another service named.
    ADD COLUMN cover_id         bigint CHECK (cover_id > 0),
    ADD COLUMN cover_url        text,
    -- What a service held back (a cover behind a rate limit, Google Books over its quota): a
    -- follow-up enrich job asks for it when the service's hold ends.
    ADD COLUMN enrich_pending   text[] NOT NULL DEFAULT '{}'
        CHECK (enrich_pending <@ ARRAY['cover', 'google-books']::text[]);

-- A review item may be about a catalog book (an imported row no book matched surely):
-- accepting a candidate applies it to that book, keeping it closes the item without changes.
ALTER TABLE book_reviews ADD COLUMN existing_book_id uuid REFERENCES books (id) ON DELETE CASCADE;
ALTER TABLE book_reviews DROP CONSTRAINT book_reviews_state_check;
ALTER TABLE book_reviews ADD CONSTRAINT book_reviews_state_check CHECK (state IN ('open', 'accepted', 'rejected', 'kept'));
-- One open item per book: an enrichment asked again does not open a second.
CREATE UNIQUE INDEX book_reviews_open_book ON book_reviews (existing_book_id) WHERE state = 'open' AND existing_book_id IS NOT NULL;
CREATE INDEX book_reviews_existing_book ON book_reviews (existing_book_id) WHERE existing_book_id IS NOT NULL;

-- Requests to each book service spaced cluster-wide (BookServicePacer): a request takes the
-- slot `next_at` and moves it on by the service's interval (its limit's budget); a service that
-- said "slow down" (a 429, a 403 on covers, Google's quota errors) is held until `held_until`.
-- Not namespaced: every namespace asks the services from the same addresses.
CREATE TABLE book_service_pace (
    service             text PRIMARY KEY,
    next_at             timestamptz NOT NULL DEFAULT now(),
    held_until          timestamptz,
    hold_reason         text
);

-- The cache is pruned oldest first (book-import.prune-cache).
CREATE INDEX http_cache_fetched ON http_cache (fetched_at);

CREATE OR REPLACE VIEW ops.book_imports AS
SELECT p.id, p.name, p.state, p.stage, i.source_name, i.format,
       (i.report->>'rows')::int                          AS rows,
       (i.report->>'books')::int                         AS books,
       (i.report->>'added')::int                         AS added,
       (i.report->>'updated')::int                       AS updated,
       jsonb_array_length(i.report->'merges')            AS merged,
       (i.report->>'invalidISBNs')::int                  AS invalid_isbns,
       jsonb_array_length(i.report->'problems')          AS skipped_rows,
       jsonb_array_length(i.report->'missing')           AS missing,
       e.enriched, e.not_found, e.enrich_failed, e.covers,
       p.created_at AS started_at, p.finished_at,
       e.unmatched, e.covers_pending
FROM book_imports i
JOIN productions p ON p.id = i.production_id
LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE b.enrich_status = 'enriched')  AS enriched,
           count(*) FILTER (WHERE b.enrich_status = 'not-found') AS not_found,
           count(*) FILTER (WHERE b.enrich_status = 'failed')    AS enrich_failed,
           count(*) FILTER (WHERE b.cover_path IS NOT NULL)      AS covers,
           count(*) FILTER (WHERE b.enrich_status = 'unmatched') AS unmatched,
           count(*) FILTER (WHERE 'cover' = ANY (b.enrich_pending)) AS covers_pending
    FROM (SELECT DISTINCT book_id FROM book_import_rows r WHERE r.production_id = i.production_id) r
    JOIN books b ON b.id = r.book_id
) e ON true;
