-- An identity provider an admin turned off (issue 30): it keeps its settings but signs nobody in until turned on
-- again; sessions opened through it run to their end, as after removing it.
alter table "ssoProvider" add column enabled boolean not null default true;
