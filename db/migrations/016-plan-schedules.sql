-- Plan schedules (issue 18): a plan runs on a cron schedule. The workers' BullMQ job scheduler fires it; this row is
-- what the dashboard shows and the check a fired job makes (a plan deleted since has no row, so its scheduler stops).
create table plan_schedules (
  plan_id uuid primary key references plans (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  cron text not null,
  timezone text not null default 'UTC',
  -- Runs a schedule starts are started in this user's name (their role at the time it fires).
  created_by text not null,
  updated_at timestamptz not null default now()
);
create index plan_schedules_org_idx on plan_schedules (org_id);
