-- Metrics export (issue 17): per organisation, where a run's per-second series go (Prometheus remote write, OTLP
-- metrics over HTTP), with the credentials encrypted by the application (AES-256-GCM; never readable through the
-- API), and the last delivery's outcome for the settings page.
create table metrics_export_sinks (
  org_id text not null references "organization" ("id") on delete cascade,
  sink text not null check (sink in ('prometheus', 'otlp')),
  url text not null,
  auth text not null default 'none' check (auth in ('none', 'basic', 'bearer')),
  username text,
  -- The basic-auth password or the bearer token, encrypted (iv.tag.ciphertext, base64url); null when none.
  secret_sealed text,
  -- The extra headers as a JSON object, encrypted the same way (their values are often API keys).
  headers_sealed text,
  header_names text[] not null default '{}',
  last_success_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (org_id, sink)
);

-- How far each run's series has gone to each sink: seconds go out in order (a Prometheus series takes no sample
-- older than its newest), so the next push starts after `last_second`. `totals` carry the cumulative counters.
create table run_metrics_exports (
  run_id uuid not null references runs (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  sink text not null,
  last_second bigint,
  totals jsonb not null default '{}'::jsonb,
  summary_sent boolean not null default false,
  updated_at timestamptz not null default now(),
  primary key (run_id, sink)
);
