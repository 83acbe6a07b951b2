-- Network cohorts (issue 26 §2): each snapshot's per-cohort figures, { name: { clients, counters, histograms, applied } }
-- as the agent sent them (at most 8 cohorts); null for snapshots of plans without cohorts.
alter table snapshots add column cohorts jsonb;
