-- The table-read pipeline (plan 'table-read'): parse → enrich → generate → assemble.
-- One row per production in table_reads; the enrich stage fills characters, scenes and the
-- speakable lines; the assemble stage records the outputs. See docs/pipeline.md.

CREATE TABLE table_reads (
    production_id       uuid PRIMARY KEY REFERENCES productions (id) ON DELETE CASCADE,
    -- The submitted file on the asset volume (relative path) and its original name.
    source_path         text NOT NULL,
    source_name         text NOT NULL,
    -- Set when the parse stage finished.
    document_id         uuid REFERENCES documents (id),
    -- Set by the enrich stage.
    provider            text,
    language            text,
    page_count          double precision,
    estimated_seconds   double precision,
    word_count          integer,
    line_count          integer,
    -- Set by the assemble stage (paths relative to the asset root).
    audio_path          text,
    subtitles_path      text,
    chapters_path       text,
    report_path         text,
    audio_seconds       double precision,
    peak_dbfs           double precision,
    rms_dbfs            double precision,
    spoken_lines        integer,
    missing_lines       integer,
    assembled_at        timestamptz
);

CREATE INDEX table_reads_document ON table_reads (document_id);

CREATE TABLE production_characters (
    production_id       uuid NOT NULL REFERENCES productions (id) ON DELETE CASCADE,
    name                text NOT NULL,
    dialogue_lines      integer NOT NULL,
    words               integer NOT NULL,
    first_chapter       integer NOT NULL,
    first_order         integer NOT NULL,
    -- 1-based indexes into production_scenes.
    scenes              integer[] NOT NULL,
    voice               text,
    PRIMARY KEY (production_id, name)
);

CREATE TABLE production_scenes (
    production_id       uuid NOT NULL REFERENCES productions (id) ON DELETE CASCADE,
    scene_index         integer NOT NULL,
    chapter_index       integer NOT NULL,
    order_index         integer NOT NULL,
    heading             text NOT NULL,
    -- INT, EXT, INT/EXT or EST (NULL when the heading has no recognised prefix).
    setting             text,
    location            text NOT NULL,
    time_of_day         text,
    scene_number        text,
    -- Length in eighths of a page, as a script supervisor measures it.
    eighths             integer NOT NULL,
    estimated_seconds   double precision NOT NULL,
    PRIMARY KEY (production_id, scene_index)
);

-- What the table read says, in (chapter_index, order_index) order; content_key names the audio
-- (generated_content.content_key) so lines with unchanged text and voice are not generated again.
CREATE TABLE production_lines (
    production_id       uuid NOT NULL REFERENCES productions (id) ON DELETE CASCADE,
    chapter_index       integer NOT NULL,
    order_index         integer NOT NULL,
    element_type        text NOT NULL,
    -- 'narrator' or the character's normalised name.
    speaker             text NOT NULL,
    voice               text NOT NULL,
    provider            text NOT NULL,
    language            text,
    text                text NOT NULL,
    content_key         text NOT NULL,
    scene_index         integer,
    PRIMARY KEY (production_id, chapter_index, order_index)
);

CREATE INDEX production_lines_content ON production_lines (content_key);
