-- Errors you can read (issue 28 §2, agent/PROTOCOL.md §5.2): each run keeps the first distinct samples of each error
-- kind its agents sent (at most ERROR_SAMPLES_PER_KIND, packages/protocol/src/error-samples.ts), with the agent, the
-- client, when, and the first 256 bytes that caused it. Distinct on (run, kind, fingerprint of message and bytes).
create table run_error_samples (
  run_id uuid not null references runs (id) on delete cascade,
  kind text not null,
  -- md5 of message and hex: the same error sent twice (a re-sent snapshot, two agents) is kept once
  fingerprint text not null,
  org_id text not null references "organization" ("id") on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  message text not null,
  -- epoch milliseconds, server time
  at bigint not null,
  client integer,
  bytes_length integer,
  bytes_hex text,
  received_at timestamptz not null default now(),
  primary key (run_id, kind, fingerprint)
);
create index run_error_samples_run_idx on run_error_samples (run_id, at);
