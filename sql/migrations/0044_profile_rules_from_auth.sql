-- The profile rules (spec §5: a name of at least 2 characters, a phone
-- number of at least 10 digits) held for writes to public.profiles made by
-- an API role, but not for the copies the auth triggers make from the
-- user's metadata: they run as their owner, which profiles_validate lets
-- through. So `PUT /auth/v1/user {"data": {"phone_number": "1"}}`, or a
-- sign-up sent straight to the API with such metadata, stored values the
-- profile form refuses. The metadata itself is the user's own JSON and is
-- kept as sent (GoTrue does not validate it); only values that pass the
-- rules are copied into the profile, and a value that fails leaves the
-- profile's as it was.

-- Each takes the metadata's value as JSON: only a string is a name or a
-- phone number (->> would turn an object into its JSON text).
create function app_private.profile_name(p_value jsonb) returns text
  language sql immutable
  set search_path = ''
as $$
  select v from (select nullif(btrim(p_value #>> '{}'), '') as v where jsonb_typeof(p_value) = 'string') x
   where char_length(v) >= 2
$$;
comment on function app_private.profile_name(jsonb) is 'p_value trimmed when it is a JSON string that is a valid profile name (spec §5: at least 2 characters), else NULL.';

create function app_private.profile_phone(p_value jsonb) returns text
  language sql immutable
  set search_path = ''
as $$
  select v from (select nullif(btrim(p_value #>> '{}'), '') as v where jsonb_typeof(p_value) = 'string') x
   where char_length(regexp_replace(v, '\D', '', 'g')) >= 10
$$;
comment on function app_private.profile_phone(jsonb) is 'p_value trimmed when it is a JSON string that is a valid profile phone number (spec §5: at least 10 digits), else NULL.';
revoke execute on function app_private.profile_name(jsonb), app_private.profile_phone(jsonb) from public;

create or replace function app_private.handle_new_auth_user() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  insert into public.profiles (id, full_name, phone_number, created_at)
  values (new.id,
          app_private.profile_name(new.raw_user_meta_data -> 'full_name'),
          app_private.profile_phone(new.raw_user_meta_data -> 'phone_number'),
          coalesce(new.created_at, now()))
  on conflict (id) do nothing;
  insert into public.user_roles (user_id, role) values (new.id, 'user')
  on conflict (user_id) do nothing;
  return new;
end
$$;
comment on function app_private.handle_new_auth_user() is 'Trigger on auth.users insert: creates the profile (full_name, phone_number from raw_user_meta_data when they pass the profile rules) and the user role row.';

create or replace function app_private.handle_auth_user_metadata() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_name text := app_private.profile_name(new.raw_user_meta_data -> 'full_name');
  v_phone text := app_private.profile_phone(new.raw_user_meta_data -> 'phone_number');
begin
  update public.profiles p
     set full_name = coalesce(v_name, p.full_name),
         phone_number = coalesce(v_phone, p.phone_number)
   where p.id = new.id
     and (p.full_name is distinct from coalesce(v_name, p.full_name)
          or p.phone_number is distinct from coalesce(v_phone, p.phone_number));
  return new;
end
$$;
comment on function app_private.handle_auth_user_metadata() is 'Trigger on auth.users metadata update: copies full_name and phone_number into the profile when they pass the profile rules.';
