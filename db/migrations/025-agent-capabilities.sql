-- What a load agent's owner lets it run (issue 27 §1): scripts (none, any, or bundles by SHA-256) and its
-- --allow-target rules, from its hello (agent/PROTOCOL.md §2.10). The control plane places no run on an agent that
-- would refuse it, and the Agents page shows them; null: an older agent that did not say.
alter table agents add column capabilities jsonb;
