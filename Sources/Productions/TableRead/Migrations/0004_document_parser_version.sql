-- A document is the parse of its bytes BY ONE VERSION OF THE PARSER. Before this, the stored
-- parse of unchanged bytes was reused forever, so a parser fix (such as Final Draft's dual
-- dialogue nested in a paragraph, which the first parser dropped) never reached a script that
-- had been submitted once. Rows from before are version 1; the parser records its own version
-- (ScreenplayReader.parserVersion) and a newer one parses the same bytes again into a new row.
-- `warnings` keeps what the parser reported (unknown elements, unexpected nesting, a legacy
-- encoding) for the table-read report.
ALTER TABLE documents ADD COLUMN parser_version integer NOT NULL DEFAULT 1;
ALTER TABLE documents ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]';
ALTER TABLE documents DROP CONSTRAINT documents_source_sha256_key;
ALTER TABLE documents ADD CONSTRAINT documents_source_parser_key UNIQUE (source_sha256, parser_version);
