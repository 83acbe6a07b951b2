-- The runs list filtered and paged by the database (issue 18): who started each run, and indexes for the filters
-- the web offers (status, plan, verdict outcome), each newest first like the list.
alter table runs add column started_by text;
create index runs_org_status_idx on runs (org_id, status, created_at desc);
create index runs_org_plan_idx on runs (org_id, plan_id, created_at desc);
create index runs_org_outcome_idx on runs (org_id, (verdict ->> 'outcome'), created_at desc);
