-- auth.oauth_client_states, column for column as Supabase Auth has it (its
-- migration 20251201000000): one row per sign-in with an external OpenID
-- Connect provider, where authsvc is the OAuth client. It holds the PKCE
-- code_verifier that /callback sends with the provider's code. The state
-- parameter only names the row, so the verifier never travels through the
-- browser or the provider, and /callback deletes the row as it reads it, so a
-- state is used once. A new table rather than columns on auth.flow_state: that
-- table keeps the shape of a Supabase project's, and it holds the client's
-- PKCE flow with authsvc, not authsvc's with the provider.
create table auth.oauth_client_states (
  id uuid primary key,
  provider_type text not null,
  code_verifier text,
  created_at timestamptz not null
);
create index idx_oauth_client_states_created_at on auth.oauth_client_states (created_at);
comment on table auth.oauth_client_states is 'Auth: PKCE verifiers of pending sign-ins with external providers, deleted by their callback.';
alter table auth.oauth_client_states owner to supabase_auth_admin;
