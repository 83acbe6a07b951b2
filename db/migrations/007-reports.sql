-- Public read-only share links to run reports, and capacity estimates kept per target and build.

create table share_links (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  run_id uuid not null references runs (id) on delete cascade,
  token_hash text not null unique,
  created_by text references "user" ("id") on delete set null,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index share_links_run_idx on share_links (org_id, run_id);

create table capacity_estimates (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  target_name text not null,
  build text not null,
  run_id uuid not null references runs (id) on delete cascade,
  clients integer,
  valid boolean not null,
  sentence text not null,
  created_at timestamptz not null default now()
);
create index capacity_estimates_target_idx on capacity_estimates (org_id, target_name, created_at);
