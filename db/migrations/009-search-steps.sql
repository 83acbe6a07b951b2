-- An automatic capacity search's steps under the control plane: each level the server decided (the source of
-- truth for what every agent holds, and what a reconnecting agent resumes at), and once its seconds are
-- judged, whether it held every SLO.
create table run_search_steps (
  run_id uuid not null references runs (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  step integer not null check (step >= 0),
  clients integer not null check (clients >= 1),
  phase text not null check (phase in ('coarse', 'fine')),
  start_at timestamptz not null,
  held boolean,
  judged_at timestamptz,
  primary key (run_id, step)
);
