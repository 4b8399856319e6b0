-- Per-line status in `reparto results`: the version of the speakable rules a production's lines
-- were made with, and what the assembler heard wrong in a line's audio (silent, clipped).
ALTER TABLE table_reads ADD COLUMN rules_version integer;
ALTER TABLE production_lines ADD COLUMN audio_defects text[];
