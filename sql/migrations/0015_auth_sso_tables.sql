-- The rest of Supabase Auth's tables: GoTrue's own migration ledger and the
-- single sign-on (SAML) configuration. authsvc offers no SAML sign-in, but a
-- data-only dump of a real project's auth schema has a COPY block for each of
-- these tables, and such a dump must load here unchanged (sql/tests
-- TestAuthDataOnlyDumpLoads). Column for column as GoTrue creates them.

create table auth.schema_migrations (
  version varchar(255) primary key
);
comment on table auth.schema_migrations is 'Auth: the versions of GoTrue''s own migrations a dumped project had applied (kept for imports).';

create table auth.sso_providers (
  id uuid primary key,
  resource_id text check (resource_id is null or char_length(resource_id) > 0),
  created_at timestamptz,
  updated_at timestamptz,
  disabled boolean
);
create unique index sso_providers_resource_id_idx on auth.sso_providers (lower(resource_id));
comment on table auth.sso_providers is 'Auth: single sign-on identity providers (imported; authsvc does not sign in with them).';

create table auth.sso_domains (
  id uuid primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  domain text not null check (char_length(domain) > 0),
  created_at timestamptz,
  updated_at timestamptz
);
create index sso_domains_sso_provider_id_idx on auth.sso_domains (sso_provider_id);
create unique index sso_domains_domain_idx on auth.sso_domains (lower(domain));
comment on table auth.sso_domains is 'Auth: email domains routed to an SSO provider.';

create table auth.saml_providers (
  id uuid primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  entity_id text not null unique check (char_length(entity_id) > 0),
  metadata_xml text not null check (char_length(metadata_xml) > 0),
  metadata_url text check (metadata_url is null or char_length(metadata_url) > 0),
  attribute_mapping jsonb,
  created_at timestamptz,
  updated_at timestamptz,
  name_id_format text
);
create index saml_providers_sso_provider_id_idx on auth.saml_providers (sso_provider_id);
comment on table auth.saml_providers is 'Auth: SAML metadata of each SSO provider.';

create table auth.saml_relay_states (
  id uuid primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  request_id text not null check (char_length(request_id) > 0),
  for_email text,
  redirect_to text,
  created_at timestamptz,
  updated_at timestamptz,
  flow_state_id uuid references auth.flow_state (id) on delete cascade
);
create index saml_relay_states_sso_provider_id_idx on auth.saml_relay_states (sso_provider_id);
create index saml_relay_states_for_email_idx on auth.saml_relay_states (for_email);
create index saml_relay_states_created_at_idx on auth.saml_relay_states (created_at desc);
comment on table auth.saml_relay_states is 'Auth: SAML requests in flight.';

-- As with the other auth tables: owned by the role authsvc connects as, no
-- privileges for the API roles.
alter table auth.schema_migrations owner to supabase_auth_admin;
alter table auth.sso_providers owner to supabase_auth_admin;
alter table auth.sso_domains owner to supabase_auth_admin;
alter table auth.saml_providers owner to supabase_auth_admin;
alter table auth.saml_relay_states owner to supabase_auth_admin;
