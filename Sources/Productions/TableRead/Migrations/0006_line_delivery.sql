-- How each table-read line is said (issue 15): the delivery its parenthetical asks for (style and
-- pause, or an unknown parenthetical kept as evidence; NULL: none) and, when a pronunciation
-- lexicon changed a word, the text the provider is given (NULL: the line's own text). text stays
-- the script's spelling for subtitles and reports. See docs/speech.md.
ALTER TABLE production_lines
    ADD COLUMN delivery    jsonb,
    ADD COLUMN spoken_text text;
