-- The cast of a production or document (owner): provider, language, narrator and character voices.
CREATE TABLE casts (
    owner      text PRIMARY KEY,
    provider   text NOT NULL,
    language   text,
    narrator   text,
    characters jsonb NOT NULL DEFAULT '{}'::jsonb,
    updated_at timestamptz NOT NULL DEFAULT now()
);
