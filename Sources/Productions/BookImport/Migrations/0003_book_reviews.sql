-- The review list (docs/books.md, "Matching and review"): a title and author as read (a spine on
-- a shelf photo, an export row without ISBN) that no catalog or Open Library book matched surely
-- enough (BookCatalog.BookMatcher), kept with the candidates it was scored against. A person
-- accepts one of them, or the reading itself, or rejects it; nothing is merged into a book
-- without them.
--
-- Not namespaced: like `books`, `authors` and `library_entries` (which runtime 0009 leaves
-- without row-level security), the list belongs to the one catalog every namespace shares.
-- `production_id` names the production that opened an item; a session of another namespace
-- sees the item but not that production (foreign-key checks bypass row-level security).
CREATE TABLE book_reviews (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    source              text NOT NULL CHECK (source IN ('bookshelf-scan', 'book-import')),
    production_id       uuid REFERENCES productions (id) ON DELETE SET NULL,
    -- Where in the source ("photo 3, spine 7", "line 12").
    reference           text NOT NULL,
    title               text NOT NULL,
    author              text,
    -- BookMatch values (candidate, score, evidence), best first.
    candidates          jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(candidates) = 'array'),
    state               text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'accepted', 'rejected')),
    -- The book an accepted item became (NULL if that book is removed later).
    book_id             uuid REFERENCES books (id) ON DELETE SET NULL,
    created_at          timestamptz NOT NULL DEFAULT now(),
    decided_at          timestamptz,
    CHECK ((state = 'open') = (decided_at IS NULL))
);

-- The open list, oldest first.
CREATE INDEX book_reviews_open ON book_reviews (created_at, id) WHERE state = 'open';
CREATE INDEX book_reviews_production ON book_reviews (production_id);
CREATE INDEX book_reviews_book ON book_reviews (book_id);

-- Catalog look-ups by title key alone (a spine read without its author): the part of
-- match_key before '|'.
CREATE INDEX books_title_key ON books (split_part(match_key, '|', 1));
