-- Accounts and security: invitation links, API tokens, the audit log, and per-org limits on runs.

create table org_invitations (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  token_hash text not null unique,
  role text not null,
  created_by text references "user" ("id") on delete set null,
  expires_at timestamptz not null,
  accepted_by text references "user" ("id") on delete set null,
  accepted_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index org_invitations_org_idx on org_invitations (org_id);

create table api_tokens (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  name text not null,
  token_hash text not null unique,
  scope text not null,
  created_by text not null references "user" ("id") on delete cascade,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz not null default now()
);
create index api_tokens_org_idx on api_tokens (org_id);

create table audit_log (
  id bigserial primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  at timestamptz not null default now(),
  actor text not null,
  action text not null,
  target text,
  details jsonb not null default '{}'
);
create index audit_log_org_idx on audit_log (org_id, at desc);

create table org_settings (
  org_id text primary key references "organization" ("id") on delete cascade,
  settings jsonb not null
);
