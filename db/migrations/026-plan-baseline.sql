-- A plan's baseline (issue 28 §3): one of its own finished runs that every later run is compared with (the report,
-- `throng run --baseline pinned`). Cleared when that run is deleted; core checks the run is the plan's and finished.
alter table plans add column baseline_run_id uuid references runs (id) on delete set null;
