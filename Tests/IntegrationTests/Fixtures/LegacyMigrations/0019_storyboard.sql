-- The analysis's storyboard (`reparto analyze --storyboard`, issue #13): one frame per scene, a
-- PNG generated from the scene's heading and summary. The file is the generated_content row's
-- (content-addressed under cache/image/, so an unchanged scene of an edited script reuses it);
-- the scene keeps its path, checksum, content key and the provider that drew it.
ALTER TABLE analysis_scenes
    ADD COLUMN frame_path     text,
    ADD COLUMN frame_sha256   text,
    ADD COLUMN frame_key      text,
    ADD COLUMN frame_provider text;
