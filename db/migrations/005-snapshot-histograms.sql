-- Every latency histogram a snapshot carries (corrected RTT, connect, login, broadcast, jitter), and the
-- step-up load step it belongs to. rtt_hist stays the plain RTT histogram.
alter table snapshots add column histograms jsonb not null default '{}';
alter table snapshots add column step integer;
