-- A schedule can be paused without being forgotten (issue 28 §3, the Schedules page): its cron, zone and last firing
-- stay, its BullMQ job scheduler is removed until it is resumed, and a job produced before the pause starts nothing.
alter table plan_schedules
  add column paused_at timestamptz,
  add column paused_by text;
