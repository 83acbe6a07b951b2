-- An automatic capacity search goes back to the last level that held after its first break and waits there
-- until that level holds again (a "settle" step: the server drains the backlog of the overload) before its
-- fine steps.
alter table run_search_steps drop constraint run_search_steps_phase_check;
alter table run_search_steps add constraint run_search_steps_phase_check check (phase in ('coarse', 'settle', 'fine'));
