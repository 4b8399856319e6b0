-- The script analysis production (`reparto analyze`): one row per analysis, one per scene with its
-- summary and the content key of its embedding (a generated_content row).
CREATE TABLE analyses (
    production_id       uuid PRIMARY KEY,
    source_name         text NOT NULL,
    text_providers      text[] NOT NULL,
    embedding_providers text[] NOT NULL,
    logline             text,
    synopsis            text,
    created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE analysis_scenes (
    production_id    uuid NOT NULL REFERENCES analyses ON DELETE CASCADE,
    scene            integer NOT NULL CHECK (scene >= 0),
    heading          text NOT NULL,
    body             text NOT NULL,
    summary          text,
    summary_provider text,
    embedding_key    text,
    PRIMARY KEY (production_id, scene)
);

-- The analysis's characters: their lines (as sent to the provider) and the description written from them.
CREATE TABLE analysis_characters (
    production_id uuid NOT NULL REFERENCES analyses ON DELETE CASCADE,
    name          text NOT NULL,
    line_count    integer NOT NULL CHECK (line_count > 0),
    lines         text NOT NULL,
    description   text,
    PRIMARY KEY (production_id, name)
);
