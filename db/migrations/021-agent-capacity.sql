-- What a load agent can hold (issue 25): its open-file limit and engine processes, from its hello (agent/PROTOCOL.md
-- §2.9). The control plane never gives an agent more clients than max_engines × clients_per_engine; null: an older
-- agent that did not say, whose shares are split by cores alone as before.
alter table agents
  add column open_file_limit integer,
  add column clients_per_engine integer,
  add column max_engines integer;
