-- Bookshelf scans: photos of shelves, the spines a vision model read on each, and what each
-- spine became in the catalog (a book the reader has, a book added, or an item to review).

-- One scan (a production of plan `bookshelf-scan`).
CREATE TABLE bookshelf_scans (
    production_id       uuid PRIMARY KEY REFERENCES productions (id) ON DELETE CASCADE,
    vision_provider     text NOT NULL,
    model               text,
    -- The fan-in's totals (ScanReport as JSON), NULL until the report stage ran.
    report              jsonb,
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- One photo of a scan: where it is on the asset volume and what reading it gave.
CREATE TABLE bookshelf_photos (
    production_id       uuid NOT NULL REFERENCES bookshelf_scans (production_id) ON DELETE CASCADE,
    photo               integer NOT NULL CHECK (photo >= 0),
    source_name         text NOT NULL,
    -- The normalized image (upright, at most 2048 px a side, JPEG), volume-relative.
    path                text NOT NULL,
    sha256              text NOT NULL,
    width               integer NOT NULL,
    height              integer NOT NULL,
    state               text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'read', 'matched')),
    -- The spines as read (ShelfSpine list), and whether an earlier read of the same image was reused.
    spines              jsonb,
    reused              boolean,
    model               text,
    PRIMARY KEY (production_id, photo)
);

-- A vision model's reading of one image, by content: the same photo read again with the same
-- provider, model and prompt is not sent again.
CREATE TABLE bookshelf_reads (
    read_key            text PRIMARY KEY,
    provider            text NOT NULL,
    model               text NOT NULL,
    spines              jsonb NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- What each spine became, and why.
CREATE TABLE bookshelf_spines (
    production_id       uuid NOT NULL,
    photo               integer NOT NULL,
    position            integer NOT NULL,
    title               text NOT NULL,
    author              text,
    confidence          double precision NOT NULL,
    outcome             text NOT NULL CHECK (outcome IN ('owned', 'added', 'review', 'unreadable')),
    book_id             uuid REFERENCES books (id) ON DELETE SET NULL,
    review_id           uuid REFERENCES book_reviews (id) ON DELETE SET NULL,
    score               double precision,
    evidence            text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (production_id, photo, position),
    FOREIGN KEY (production_id, photo) REFERENCES bookshelf_photos (production_id, photo) ON DELETE CASCADE
);

-- What `reparto status` and the dashboard show of scans.
CREATE VIEW ops.bookshelf_scans AS
SELECT p.id, p.name, p.state, p.stage, s.vision_provider,
       (SELECT count(*) FROM bookshelf_photos ph WHERE ph.production_id = p.id) AS photos,
       (SELECT count(*) FROM bookshelf_photos ph WHERE ph.production_id = p.id AND ph.state <> 'pending') AS read,
       (SELECT count(*) FROM bookshelf_spines sp WHERE sp.production_id = p.id) AS spines,
       (SELECT count(*) FROM bookshelf_spines sp WHERE sp.production_id = p.id AND sp.outcome = 'owned') AS owned,
       (SELECT count(*) FROM bookshelf_spines sp WHERE sp.production_id = p.id AND sp.outcome = 'added') AS added,
       (SELECT count(*) FROM bookshelf_spines sp WHERE sp.production_id = p.id AND sp.outcome = 'review') AS to_review,
       p.created_at AS started_at
FROM productions p JOIN bookshelf_scans s ON s.production_id = p.id;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT SELECT ON ops.bookshelf_scans TO reparto_dashboard;
    END IF;
END
$$;
