-- Plans are edited in place and keep every version; a run records the version it ran (and its own copy).
alter table plans add column version integer not null default 1;
create table plan_versions (
  plan_id uuid not null references plans (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  version integer not null,
  spec jsonb not null,
  created_at timestamptz not null default now(),
  primary key (plan_id, version)
);
insert into plan_versions (plan_id, org_id, version, spec, created_at) select id, org_id, 1, spec, created_at from plans;
alter table runs add column plan_version integer;
