-- The rollups' statement trigger (0010) pairs each updated job's old and new row by joining its
-- transition tables. The planner has no row counts for them and planned a nested loop, so a
-- statement's trigger cost grew with the square of the rows it updated: 0.03 ms for one job,
-- 20 ms for 400, 320 ms for 1,600 (a cancel of a large production, a completion batch of a busy
-- worker), against 0.55 and 1.6 ms with a hash join. Without nested loops the join is hashed.
ALTER FUNCTION reparto_job_stats() SET enable_nestloop = off;
