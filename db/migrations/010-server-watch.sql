-- Watching the server under test (agent/PROTOCOL.md §9): an agent is a load agent or a watcher, a run's shard is a
-- load shard or a watch shard, and a watcher's per-second samples of the server are kept beside the load's snapshots.
alter table agents add column role text not null default 'load';
alter table run_shards add column role text not null default 'load';

create table run_server_samples (
  run_id uuid not null references runs (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  seq integer not null,
  org_id text not null references "organization" ("id") on delete cascade,
  -- epoch second of the interval start (server clock): the same key as snapshots.second and run_seconds.second
  second bigint not null,
  sample jsonb not null,
  received_at timestamptz not null default now(),
  primary key (run_id, agent_id, seq)
);
create index run_server_samples_run_idx on run_server_samples (run_id, second);
