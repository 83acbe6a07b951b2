-- A scheduled run that cannot start (issue 18): the schedule keeps its last attempt (when, the run it started, or
-- why none started) for the plan page, and the org's channels are told through a delivery that names the plan.
alter table plan_schedules
  add column last_attempt_at timestamptz,
  add column last_run_id uuid references runs (id) on delete set null,
  add column last_error text;

-- 'schedule-failed' deliveries have no run: they carry the plan and what stopped the run instead.
alter table notification_deliveries
  add column plan_id uuid references plans (id) on delete cascade,
  add column detail text;
