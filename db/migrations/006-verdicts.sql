-- The plan's SLO verdict and (for step-up runs) the capacity estimate, computed once when a run ends.
alter table runs add column verdict jsonb;
alter table runs add column capacity jsonb;
