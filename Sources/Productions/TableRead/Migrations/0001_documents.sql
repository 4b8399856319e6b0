-- Parsed screenplays (the `parse` job kind). A document is identified by the SHA-256 of its
-- source bytes: re-submitting an unchanged file reuses the stored document. Its id is derived
-- from the hash, so concurrent duplicates collide on the primary key instead of duplicating.
-- No grants: the reparto_dashboard role reads ops.* only.

CREATE TABLE documents (
    id                  uuid PRIMARY KEY,
    -- The source file, relative to the asset root, as first submitted.
    source_path         text,
    source_sha256       text NOT NULL UNIQUE,
    format              text CHECK (format IN ('fountain', 'fdx', 'markdown')),
    element_count       integer,
    created_at          timestamptz NOT NULL DEFAULT now(),
    production_id       uuid REFERENCES productions (id) ON DELETE SET NULL
);

CREATE INDEX documents_production ON documents (production_id) WHERE production_id IS NOT NULL;

CREATE TABLE document_title_page (
    document_id         uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    position            integer NOT NULL,
    key                 text NOT NULL,
    "values"            text[] NOT NULL,
    PRIMARY KEY (document_id, position)
);

CREATE TABLE document_elements (
    document_id         uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    chapter_index       integer NOT NULL,
    order_index         integer NOT NULL,
    type                text NOT NULL,
    -- With emphasis markup; plain_text has it stripped.
    text                text NOT NULL,
    plain_text          text NOT NULL,
    level               integer,
    scene_number        text,
    name                text,
    extension           text,
    dual                boolean,
    PRIMARY KEY (document_id, chapter_index, order_index)
);
