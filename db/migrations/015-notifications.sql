-- Notifications (issue 18): per organisation, where to say that a run ended (a webhook taking JSON, or a Slack
-- incoming webhook), and a log of every delivery with its attempts, so a user sees what was sent and what failed.
create table notification_channels (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  kind text not null check (kind in ('webhook', 'slack')),
  name text not null,
  url text not null,
  -- 'finished': every run that ends; 'failed': only runs that did not pass (failed, aborted, or a failing verdict).
  events text[] not null,
  created_at timestamptz not null default now()
);
create index notification_channels_org_idx on notification_channels (org_id);

create table notification_deliveries (
  id uuid primary key,
  org_id text not null references "organization" ("id") on delete cascade,
  channel_id uuid not null references notification_channels (id) on delete cascade,
  run_id uuid references runs (id) on delete cascade,
  -- 'run-ended' or 'test' (the settings page's test button)
  event text not null,
  status text not null check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  response_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- A run's end is announced once per channel, however often the workers close it.
create unique index notification_deliveries_once_idx on notification_deliveries (channel_id, run_id) where run_id is not null;
create index notification_deliveries_org_idx on notification_deliveries (org_id, created_at desc);
