CREATE TABLE generated_content (
    id               uuid PRIMARY KEY,
    mime_type        text NOT NULL
                     CHECK (mime_type ~ '^(text|audio|image|video)/' OR mime_type = 'application/x-embedding'),
    owner_kind       text NOT NULL DEFAULT 'none'
                     CHECK (owner_kind IN ('element', 'document', 'identifier', 'none')),
    owner_id         text,
    inline_text      text,
    file_path        text,
    size_bytes       bigint CHECK (size_bytes IS NULL OR size_bytes >= 0),
    sha256           text,
    content_key      text UNIQUE,
    duration_seconds double precision,
    peak_dbfs        double precision,
    rms_dbfs         double precision,
    job_id           uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK (inline_text IS NOT NULL OR file_path IS NOT NULL),
    CHECK ((owner_kind = 'none') = (owner_id IS NULL))
);

CREATE INDEX generated_content_owner ON generated_content (owner_kind, owner_id);
CREATE INDEX generated_content_job ON generated_content (job_id);
