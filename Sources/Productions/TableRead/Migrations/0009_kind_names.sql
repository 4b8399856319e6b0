-- Job kinds are named `<owner>.<step>` from now on; this line's stored kinds are renamed:
-- parse → table-read.parse, enrich → table-read.enrich, assemble → table-read.assemble.
-- A kind is stored in jobs.kind, job_kinds.kind, pauses.name (scope 'kind') and schedules.kind;
-- no view, function, index or policy names a kind, and no JSON column holds one.
-- The table-read plan's stage names (productions.stage, jobs.stage: parse, enrich, generate,
-- assemble) are stage names, not kinds: they keep their names.
-- Row-level security shows a session only its own namespace's jobs and schedules: this
-- migration renames every namespace's rows.
SET LOCAL reparto.all_namespaces = 'on';

UPDATE jobs j SET kind = r.new_kind
FROM (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE j.kind = r.old_kind;

-- A worker of this build may have recorded a kind under its new name already: that row is
-- current, and the old name's row goes.
DELETE FROM job_kinds k
USING (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE k.kind = r.old_kind AND EXISTS (SELECT 1 FROM job_kinds n WHERE n.kind = r.new_kind);
UPDATE job_kinds k SET kind = r.new_kind
FROM (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE k.kind = r.old_kind;

-- A kind paused under both names stays paused once, since the earlier of the two.
UPDATE pauses n SET paused_at = least(n.paused_at, o.paused_at)
FROM pauses o, (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE n.scope = 'kind' AND n.name = r.new_kind AND o.scope = 'kind' AND o.name = r.old_kind;
DELETE FROM pauses p
USING (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE p.scope = 'kind' AND p.name = r.old_kind
  AND EXISTS (SELECT 1 FROM pauses n WHERE n.scope = 'kind' AND n.name = r.new_kind);
UPDATE pauses p SET name = r.new_kind
FROM (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE p.scope = 'kind' AND p.name = r.old_kind;

UPDATE schedules s SET kind = r.new_kind
FROM (VALUES ('parse', 'table-read.parse'), ('enrich', 'table-read.enrich'), ('assemble', 'table-read.assemble')) AS r (old_kind, new_kind)
WHERE s.kind = r.old_kind;
