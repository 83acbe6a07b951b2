-- Archived plans (issue 18): hidden from the plan list unless asked for, still readable, and their runs keep
-- their own copy of the spec. A plan with runs is archived, never deleted (runs cascade with their plan).
alter table plans add column archived_at timestamptz;
-- `throng run --plan-name` finds the active plan of that name on every CI run.
create index plans_org_name_idx on plans (org_id, name) where archived_at is null;
