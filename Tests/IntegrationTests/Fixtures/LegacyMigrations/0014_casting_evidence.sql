-- Casting that fits the characters (docs/speech.md, "Casting"): what the enrich stage read about
-- each cue and why it got its voice. identity: the person the cue belongs to (YOUNG EDWARD →
-- EDWARD); gender and age as inferred (NULL: unknown); provider: the voice's provider (a cast may
-- use several); casting: {"tier", "reason", "voiceGender", "options", "evidence": [...]}.
ALTER TABLE production_characters
    ADD COLUMN identity          text,
    ADD COLUMN gender            text,
    ADD COLUMN gender_confidence double precision,
    ADD COLUMN age               text,
    ADD COLUMN provider          text,
    ADD COLUMN casting           jsonb;

-- A line's synthesis options (the age adjustment of its role), as its content key was computed
-- with them; NULL: the provider's defaults. IF NOT EXISTS: the delivery work adds the same column.
ALTER TABLE production_lines ADD COLUMN IF NOT EXISTS options jsonb;
