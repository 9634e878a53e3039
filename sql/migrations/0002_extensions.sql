-- Extensions live in their own schema, as on Supabase, so they never appear
-- as tables or functions of the exposed `public` schema.
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;

create extension if not exists pgcrypto with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;

comment on schema extensions is 'Extensions (pgcrypto, uuid-ossp), kept out of the exposed public schema.';
