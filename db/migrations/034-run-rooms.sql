-- movement-sync per room (issue 28 §1, agent/PROTOCOL.md §5.3): each agent's snapshots carry its rooms since the run
-- started (the worst 50 and the spread over all, cumulative), so the control plane keeps only each agent's latest: the
-- report of an agent lost mid-run is the last one it sent. The run's view merges the agents' (their rooms are disjoint).
create table run_rooms (
  run_id uuid not null references runs (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  org_id text not null references "organization" ("id") on delete cascade,
  -- the snapshot's seq: a re-sent or late older snapshot never replaces a newer report
  seq integer not null,
  -- RoomsReport (packages/protocol/src/rooms.ts)
  report jsonb not null,
  primary key (run_id, agent_id)
);
