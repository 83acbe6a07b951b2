-- Control plane: single-use enrolment tokens, agent address, run events for reports, and a per-second roll-up.

alter table enrolment_tokens add column single_use boolean not null default false;
alter table enrolment_tokens add column used_at timestamptz;

alter table agents add column ip text;

create table run_events (
  id bigserial primary key,
  run_id uuid not null references runs (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  at timestamptz not null default now(),
  kind text not null,
  agent_id uuid references agents (id) on delete set null,
  message text not null
);
create index run_events_run_idx on run_events (run_id, at);

-- One merged SeriesPoint per run per second, rewritten whenever a snapshot for that second arrives,
-- so reading a run's series is one indexed range scan instead of a histogram merge per second.
create table run_seconds (
  run_id uuid not null references runs (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  second bigint not null,
  point jsonb not null,
  primary key (run_id, second)
);
