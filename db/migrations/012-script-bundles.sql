-- Script bundles (issue 15 §2): the JS module a script plan runs, stored once per organisation under the SHA-256
-- of its UTF-8 bytes; plans name it by that hash and agents fetch it over their control connection.
create table script_bundles (
  org_id text not null references "organization" ("id") on delete cascade,
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  name text not null,
  source text not null,
  size_bytes integer not null,
  created_by text references "user" ("id") on delete set null,
  created_at timestamptz not null default now(),
  primary key (org_id, sha256)
);
create index script_bundles_org_idx on script_bundles (org_id, created_at desc);
