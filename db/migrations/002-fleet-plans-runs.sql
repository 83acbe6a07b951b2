-- Every row belongs to an organisation; repositories always filter by org_id.

create table enrolment_tokens (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  token_hash text not null unique,
  created_by text references "user" ("id") on delete set null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index enrolment_tokens_org_idx on enrolment_tokens (org_id);

create table agents (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  secret_hash text not null,
  hostname text not null,
  os text not null,
  arch text not null,
  cores integer not null,
  memory_bytes bigint not null,
  version text not null,
  labels jsonb not null default '{}',
  connected boolean not null default false,
  last_seen_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index agents_org_idx on agents (org_id);

create table plans (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  name text not null,
  spec jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index plans_org_idx on plans (org_id, created_at desc);

create table runs (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  plan_id uuid not null references plans (id) on delete cascade,
  -- the exact plan the run used: editing a plan never changes a past run
  spec jsonb not null,
  status text not null,
  error text,
  summary jsonb,
  start_at timestamptz,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  ended_at timestamptz
);
create index runs_org_idx on runs (org_id, created_at desc);

create table run_shards (
  run_id uuid not null references runs (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  shard_index integer not null,
  clients integer not null,
  state text not null default 'assigned',
  last_seq integer,
  error text,
  primary key (run_id, agent_id)
);
create index run_shards_agent_idx on run_shards (agent_id, state);

create table snapshots (
  run_id uuid not null references runs (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  seq integer not null,
  org_id text not null references "organization" ("id") on delete cascade,
  -- epoch second of the interval start (server clock): the key that merges agents per second
  second bigint not null,
  interval_ms integer not null,
  clients integer not null,
  counters jsonb not null,
  rtt_hist text not null,
  health jsonb not null,
  received_at timestamptz not null default now(),
  primary key (run_id, agent_id, seq)
);
create index snapshots_run_second_idx on snapshots (run_id, second);
