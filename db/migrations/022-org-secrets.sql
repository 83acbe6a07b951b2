-- Organisation secrets (issue 27 §4): values plans name as {{secrets.NAME}} instead of holding them in their text.
-- The value is encrypted by the application (AES-256-GCM, like the metrics-export credentials) and never readable
-- through the API; the api opens it only to hand it to an agent inside the shard or trial that uses it.
create table org_secrets (
  org_id text not null references "organization" ("id") on delete cascade,
  name text not null check (name ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'),
  -- iv.tag.ciphertext, base64url
  value_sealed text not null,
  -- Who set it, as the audit log names them (an email, or "token <name>").
  created_by text,
  created_at timestamptz not null default now(),
  updated_by text,
  updated_at timestamptz not null default now(),
  primary key (org_id, name)
);
