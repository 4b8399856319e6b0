-- The book catalog (plan 'book-import', issue #14): a reader's library export is parsed into
-- books, authors and per-row user fields; enrichment fills the catalog columns from public book
-- services through a shared HTTP response cache. See docs/books.md.

-- One row per book of the catalog. A book with a valid ISBN-13 is unique by it; a book without
-- one is found again by match_key (title key | first author key, BookCatalog.MatchKey).
CREATE TABLE books (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    isbn13              text UNIQUE CHECK (isbn13 ~ '^97[89][0-9]{10}$'),
    title               text NOT NULL,
    match_key           text NOT NULL,
    publisher           text,
    pages               integer,
    year                integer,
    -- ISBNs the exports gave that failed their checksum: kept, flagged, never dropped.
    invalid_isbns       text[] NOT NULL DEFAULT '{}',
    -- Filled by the enrich stage (NULL until then).
    subtitle            text,
    publishers          text[],
    publish_year        integer,
    page_count          integer,
    subjects            text[],
    language            text,
    description         text,
    identifiers         jsonb,
    cover_path          text,
    enrich_status       text CHECK (enrich_status IN ('enriched', 'not-found', 'failed')),
    enriched_at         timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX books_match_key ON books (match_key);

CREATE TABLE authors (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name                text NOT NULL,
    -- BookCatalog.MatchKey.author: "Le Guin, Ursula K." and "Ursula K. Le Guin" are one author.
    name_key            text NOT NULL UNIQUE
);

CREATE TABLE book_authors (
    book_id             uuid NOT NULL REFERENCES books (id) ON DELETE CASCADE,
    author_id           uuid NOT NULL REFERENCES authors (id),
    position            integer NOT NULL,
    PRIMARY KEY (book_id, author_id)
);

CREATE INDEX book_authors_author ON book_authors (author_id);

-- The reader's library: which catalog books their latest export holds, with the user fields of
-- the book's first row there. A re-import updates these; books missing from it are reported and
-- removed only with --prune.
CREATE TABLE library_entries (
    book_id             uuid PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
    production_id       uuid REFERENCES productions (id) ON DELETE SET NULL,
    rating              double precision,
    shelves             text[] NOT NULL DEFAULT '{}',
    status              text NOT NULL,
    date_added          date,
    date_read           date,
    updated_at          timestamptz NOT NULL DEFAULT now()
);

-- One row per import production.
CREATE TABLE book_imports (
    production_id       uuid PRIMARY KEY REFERENCES productions (id) ON DELETE CASCADE,
    source_path         text NOT NULL,
    source_name         text NOT NULL,
    format              text,
    prune               boolean NOT NULL DEFAULT false,
    -- The parse stage's report (BookImportReport as JSON).
    report              jsonb
);

-- Every imported row of an export, with its own user fields; merged rows name the line of the
-- row they merged into and why.
CREATE TABLE book_import_rows (
    production_id       uuid NOT NULL REFERENCES productions (id) ON DELETE CASCADE,
    line                integer NOT NULL,
    book_id             uuid REFERENCES books (id) ON DELETE SET NULL,
    title               text NOT NULL,
    authors             text[] NOT NULL,
    isbn13              text,
    invalid_isbn        text,
    source_id           text,
    merged_into_line    integer,
    merge_reason        text CHECK (merge_reason IN ('isbn', 'title-author')),
    rating              double precision,
    shelves             text[] NOT NULL DEFAULT '{}',
    status              text NOT NULL,
    date_added          date,
    date_read           date,
    PRIMARY KEY (production_id, line)
);

CREATE INDEX book_import_rows_book ON book_import_rows (book_id);

-- Responses of the public book services, shared by every worker: a re-import asks nothing
-- while its entries are fresh (ISBN look-ups 7 days, searches 6 hours).
CREATE TABLE http_cache (
    cache_key           text PRIMARY KEY,
    url                 text NOT NULL,
    status              integer NOT NULL,
    body                bytea NOT NULL,
    fetched_at          timestamptz NOT NULL DEFAULT now(),
    expires_at          timestamptz NOT NULL
);

CREATE INDEX http_cache_expires ON http_cache (expires_at);

-- The imports as `reparto status` and dashboards read them: each import's report and its books
-- by enrichment state (ops.*, granted to the read-only reparto_dashboard role like the others).
CREATE VIEW ops.book_imports AS
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
       p.created_at AS started_at, p.finished_at
FROM book_imports i
JOIN productions p ON p.id = i.production_id
LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE b.enrich_status = 'enriched')  AS enriched,
           count(*) FILTER (WHERE b.enrich_status = 'not-found') AS not_found,
           count(*) FILTER (WHERE b.enrich_status = 'failed')    AS enrich_failed,
           count(*) FILTER (WHERE b.cover_path IS NOT NULL)      AS covers
    FROM (SELECT DISTINCT book_id FROM book_import_rows r WHERE r.production_id = i.production_id) r
    JOIN books b ON b.id = r.book_id
) e ON true;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT SELECT ON ops.book_imports TO reparto_dashboard;
    END IF;
END
$$;
