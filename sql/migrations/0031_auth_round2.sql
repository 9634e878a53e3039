-- auth.oauth_clients: the clients registered with authsvc's OAuth 2.1
-- server (GOTRUE_OAUTH_SERVER_ENABLED), managed through the admin API
-- (auth-js auth.admin.oauth.*: /admin/oauth/clients). Column for column as
-- Supabase Auth has it, enums included, so that a project's data-only dump
-- of the auth schema loads here unchanged: the client_id is the row's uuid;
-- redirect_uris and grant_types are comma-separated text, as GoTrue keeps
-- them; only the SHA-256 of a confidential client's secret is stored
-- (base64url, as GoTrue hashes it), the secret itself is shown once, at
-- registration or regeneration; a deleted client keeps its row with
-- deleted_at set (GoTrue soft-deletes), so an id is never reused.
create type auth.oauth_registration_type as enum ('dynamic', 'manual');
create type auth.oauth_client_type as enum ('public', 'confidential');
alter type auth.oauth_registration_type owner to supabase_auth_admin;
alter type auth.oauth_client_type owner to supabase_auth_admin;

create table auth.oauth_clients (
  id uuid primary key,
  client_secret_hash text,
  registration_type auth.oauth_registration_type not null,
  redirect_uris text not null,
  grant_types text not null,
  client_name text constraint oauth_clients_client_name_length check (char_length(client_name) <= 1024),
  client_uri text constraint oauth_clients_client_uri_length check (char_length(client_uri) <= 2048),
  logo_uri text constraint oauth_clients_logo_uri_length check (char_length(logo_uri) <= 2048),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text
);
create index oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);
comment on table auth.oauth_clients is 'Auth: clients of the OAuth 2.1 server, managed through /admin/oauth/clients; secrets are kept hashed.';
alter table auth.oauth_clients owner to supabase_auth_admin;
-- authsvc, the owner, is its only reader and writer; with RLS on and no
-- policy, a grant to another role would still show that role nothing.
alter table auth.oauth_clients enable row level security;
