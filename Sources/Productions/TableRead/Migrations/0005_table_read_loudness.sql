-- The assembled table read's loudness after normalization (ffmpeg's EBU R128 figures); NULL when
-- it was not normalized (report.json says why). See docs/pipeline.md, "Loudness".
ALTER TABLE table_reads
    ADD COLUMN loudness_lufs  double precision,
    ADD COLUMN true_peak_dbtp double precision;
