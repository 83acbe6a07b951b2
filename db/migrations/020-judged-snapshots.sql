-- Seconds that reach a run after it closed (issue 27): how many stored snapshots its summary and verdict were
-- judged on, so a snapshot stored later makes the run be judged again, once, and says how many came late. Null for
-- runs closed before it was kept, and for an aborted run until the close that follows its agents' last seconds.
alter table runs add column judged_snapshots integer;
