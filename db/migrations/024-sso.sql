-- Single sign-on (issue 30). "ssoProvider" is Better Auth's SSO plugin table (@better-auth/sso 1.7, with domain
-- verification on), in its own camelCase columns, which is what the plugin reads at sign-in; the snake_case columns
-- are Throng's and the plugin ignores them. Secrets inside "oidcConfig" and "samlConfig" (the OIDC client secret,
-- the SAML service provider's private key) are sealed by the application (AES-256-GCM), never stored in clear.
create table "ssoProvider" (
  "id" text not null primary key,
  "issuer" text not null,
  "oidcConfig" text,
  "samlConfig" text,
  "userId" text references "user" ("id") on delete set null,
  "providerId" text not null unique,
  "organizationId" text not null references "organization" ("id") on delete cascade,
  -- The provider's email domains, comma-separated (the plugin's format); each one is a domain of the org's.
  "domain" text not null,
  -- True only while every domain above is verified by the same organisation (kept by the application).
  "domainVerified" boolean not null default false,
  name text not null default '',
  -- The claim (OIDC) or attribute (SAML) whose values choose a joining member's role, and the rules that do.
  role_claim text,
  role_rules jsonb not null default '[]'::jsonb,
  default_role text not null default 'member' check (default_role in ('admin', 'member', 'viewer')),
  metadata_url text,
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index "ssoProvider_organizationId_idx" on "ssoProvider" ("organizationId");

-- Email domains an organisation claims; proven by a DNS TXT record carrying `token`. Many organisations may claim a
-- domain while it is unproven (so nobody can squat a claim), but only one can hold it verified.
create table sso_domains (
  org_id text not null references "organization" ("id") on delete cascade,
  domain text not null,
  token text not null,
  verified_at timestamptz,
  verified_by text,
  created_at timestamptz not null default now(),
  primary key (org_id, domain)
);
create unique index sso_domains_verified_once on sso_domains (domain) where verified_at is not null;

-- "Require SSO": members of the org may not use the password form (owners may, and it is audit-logged).
create table sso_policies (
  org_id text primary key references "organization" ("id") on delete cascade,
  require_sso boolean not null default false,
  changed_by text,
  changed_at timestamptz not null default now()
);

-- The SSO provider a session was opened through (null: the password form); Better Auth writes it as an additional
-- session field. A session through SSO lasts a fixed time from its sign-in; "Require SSO" reads it on every request.
alter table "session" add column "ssoProviderId" text;
