-- Private data stays private (issue 12, "Private data").
--
--   * Phone numbers: profiles is readable by its owner and admins only. The
--     names other users may see (P2P counterparties, offer owners) come from
--     the view public_profiles, which has no private column at all, so no
--     select=* or embedding can reach a phone number through it.
--   * Listing contacts (properties.contact, products.contact,
--     service_providers.phone) are column privileges away from anon: anon may
--     select every other column, so a visitor's select=* is refused and the
--     app lists columns. Signed-in users read them as before.
--   * quote_listing_fee answers only for listings the caller may see.
--   * Realtime delivers a DELETE only to subscribers whose SELECT policies
--     pass on the old row; the tables it publishes keep their whole old row
--     (REPLICA IDENTITY FULL) so owner policies can be evaluated at all.
--   * Contact verification codes are delivered, never returned: the code goes
--     into app_private.verification_outbox, which authsvc drains through its
--     mailer and SMS sender (LISTEN verification_outbox, then a sweep), and
--     the caller learns only where it was sent.

-- ---------------------------------------------------------------------------
-- Verification code outbox. A row holds the plaintext code only until
-- authsvc has handed it to the mailer or SMS sender; it is then deleted. Rows
-- whose code has expired are deleted unsent. authsvc claims rows with
-- FOR UPDATE SKIP LOCKED, so any number of replicas send each code once.
create table app_private.verification_outbox (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  channel text not null constraint verification_outbox_channel_check check (channel in ('email', 'phone')),
  destination text not null,
  code text not null,
  expires_at timestamptz not null,
  attempts integer not null default 0,
  last_error text,
  next_attempt_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create index verification_outbox_due_idx on app_private.verification_outbox (next_attempt_at);
comment on table app_private.verification_outbox is 'Contact verification codes waiting to be sent by authsvc (mailer for email, SMS sender for phone). A row lives until sent (then deleted) or expired; a new request for the same user and channel replaces the unsent one.';
alter table app_private.verification_outbox enable row level security;
grant usage on schema app_private to supabase_auth_admin;
grant select, update, delete on app_private.verification_outbox to supabase_auth_admin;
create policy verification_outbox_auth_admin on app_private.verification_outbox for all to supabase_auth_admin
  using (true) with check (true);

-- ---------------------------------------------------------------------------
-- Profiles: the trader policy opened the whole row (phone number included)
-- to every signed-in user. It goes; public_profiles takes its place.
drop policy profiles_select_trader on public.profiles;

-- A security-barrier view running with its owner's rights: it reads every
-- profile and decides visibility itself, with the rule the trader policy had
-- (owners of active offers, trade counterparties), plus the caller and
-- admins. It exposes only what is public about a person. p2p_offers.user_id
-- references profiles(id), so the API embeds it from offers
-- (p2p_offers?select=*,public_profiles(full_name)).
create view public.public_profiles with (security_barrier) as
  select p.id, p.full_name,
         exists (select 1 from public.kyc_verifications k
                  where k.user_id = p.id and k.verification_status = 'approved') as kyc_verified,
         p.created_at
    from public.profiles p
   where p.id = (select auth.uid())
      or (select public.is_admin())
      or (select auth.role()) = 'service_role'
      or exists (select 1 from public.p2p_offers o where o.user_id = p.id and o.status = 'active')
      or exists (select 1 from public.p2p_trades t
                  where (t.buyer_id = (select auth.uid()) and t.seller_id = p.id)
                     or (t.seller_id = (select auth.uid()) and t.buyer_id = p.id));
comment on view public.public_profiles is 'What other signed-in users may know of a person (id, full_name, kyc_verified, created_at): visible for owners of active P2P offers, the caller''s trade counterparties, the caller, admins and service_role. Never a phone number or e-mail.';
revoke all on public.public_profiles from public, anon, authenticated, service_role;
grant select on public.public_profiles to authenticated, service_role;

-- ---------------------------------------------------------------------------
-- Listing contacts: visitors may read every column but the contact ones.
-- Columns added later are not granted to anon until a migration says so.
do $$
declare
  r record;
  v_cols text;
begin
  for r in select * from (values ('properties', 'contact'), ('products', 'contact'), ('service_providers', 'phone')) as x(tbl, private_col) loop
    select string_agg(quote_ident(a.attname), ', ' order by a.attnum) into v_cols
      from pg_catalog.pg_attribute a
     where a.attrelid = ('public.' || r.tbl)::regclass and a.attnum > 0 and not a.attisdropped
       and a.attname <> r.private_col;
    execute format('revoke select on public.%I from anon', r.tbl);
    execute format('grant select (%s) on public.%I to anon', v_cols, r.tbl);
  end loop;
end
$$;

-- ---------------------------------------------------------------------------
-- Quotes only for listings the caller may see (the listing tables' select
-- policies: active, or the caller's own, or an admin or the service); any
-- other id is 'Listing not found', as if it did not exist.
create or replace function public.quote_listing_fee(p_kind text, p_listing_id uuid, p_days integer default 1) returns jsonb
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_row jsonb;
  v_rate integer;
  v_balance bigint;
  v_owner_col text;
begin
  v_row := app_private.listing_row(p_kind, p_listing_id, false);
  select l.owner_column into v_owner_col from app_private.listing_table(p_kind) l;
  if not ((v_row ->> 'is_active')::boolean
          or (v_row ->> v_owner_col)::uuid is not distinct from (select auth.uid())
          or public.is_admin() or app_private.is_service()) then
    raise exception 'Listing not found' using errcode = 'P0001';
  end if;
  v_rate := app_private.listing_rate(p_kind, v_row);
  select w.balance into v_balance from public.wallets w
   where w.user_id = (select auth.uid()) and w.currency = 'nestcoins' and w.kind = 'user';
  return jsonb_build_object('per_day', v_rate, 'days', greatest(coalesce(p_days, 1), 1),
                            'total', v_rate::bigint * greatest(coalesce(p_days, 1), 1),
                            'balance', coalesce(v_balance, 0),
                            'can_afford', coalesce(v_balance, 0) >= v_rate::bigint * greatest(coalesce(p_days, 1), 1));
end
$$;
comment on function public.quote_listing_fee(text, uuid, integer) is 'Cost of publishing a listing for p_days (per_day, total) and whether the caller''s Nestcoin balance covers it; charges nothing. ''Listing not found'' for a listing the caller may not see (inactive and not theirs).';

-- ---------------------------------------------------------------------------
-- Contact verification codes are sent, not returned.

-- A Kenyan number in E.164: 07XXXXXXXX / 01XXXXXXXX / 7XXXXXXXX / 2547... /
-- +2547... become +2547XXXXXXXX / +2541XXXXXXXX; any other number keeps its
-- digits behind a '+'. NULL when there are no digits.
create function public.normalize_phone_ke(p_phone text) returns text
  language sql immutable
  set search_path = ''
as $$
  select case
    when d = '' then null
    when d ~ '^0[17][0-9]{8}$' then '+254' || substr(d, 2)
    when d ~ '^[17][0-9]{8}$' then '+254' || d
    else '+' || d
  end
  from (select regexp_replace(coalesce(p_phone, ''), '\D', '', 'g') as d) x
$$;
comment on function public.normalize_phone_ke(text) is 'Phone number in E.164, Kenyan local forms (07…, 01…, 7…, 1…) as +254…; NULL without digits.';
grant execute on function public.normalize_phone_ke(text) to anon, authenticated, service_role;

create or replace function public.request_verification_code(p_channel text) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_dest text;
  v_code text;
  v_now timestamptz := now();
  v_expires timestamptz := now() + interval '10 minutes';
  v_prev timestamptz;
  v_verified boolean;
  v_id bigint;
begin
  if p_channel = 'email' then
    select u.email into v_dest from auth.users u where u.id = v_uid;
    if v_dest is null then
      raise exception 'Failed to send verification code' using errcode = 'P0001', detail = 'The account has no e-mail address.';
    end if;
  elsif p_channel = 'phone' then
    select public.normalize_phone_ke(p.phone_number) into v_dest from public.profiles p where p.id = v_uid;
    if v_dest is null then
      raise exception 'Please update your phone number in profile first' using errcode = 'P0001';
    end if;
  else
    raise exception 'Channel must be email or phone' using errcode = 'P0001';
  end if;
  insert into public.user_verifications as v (user_id) values (v_uid) on conflict (user_id) do nothing;
  select case when p_channel = 'email' then v.email_verified else v.phone_verified end,
         case when p_channel = 'email' then v.email_verification_expires_at else v.phone_verification_expires_at end
    into v_verified, v_prev
    from public.user_verifications v where v.user_id = v_uid for update;
  if v_verified then
    raise exception 'Your % is already verified', case when p_channel = 'email' then 'email' else 'phone number' end
      using errcode = 'P0001';
  end if;
  -- One code a minute: each code is a message to a real inbox or phone.
  if v_prev is not null and v_prev - interval '10 minutes' > v_now - interval '60 seconds' then
    raise exception 'Please wait a minute before requesting another code' using errcode = 'P0001',
      hint = 'The last code was sent less than a minute ago.';
  end if;
  v_code := lpad(((('x' || encode(extensions.gen_random_bytes(4), 'hex'))::bit(32)::bigint % 1000000))::text, 6, '0');
  if p_channel = 'email' then
    update public.user_verifications
       set email_verification_code = extensions.crypt(v_code, extensions.gen_salt('bf', 8)),
           email_verification_expires_at = v_expires, email_verification_attempts = 0, updated_at = v_now
     where user_id = v_uid;
  else
    update public.user_verifications
       set phone_verification_code = extensions.crypt(v_code, extensions.gen_salt('bf', 8)),
           phone_verification_expires_at = v_expires, phone_verification_attempts = 0, updated_at = v_now
     where user_id = v_uid;
  end if;
  -- An unsent older code is superseded.
  delete from app_private.verification_outbox o where o.user_id = v_uid and o.channel = p_channel;
  insert into app_private.verification_outbox (user_id, channel, destination, code, expires_at)
  values (v_uid, p_channel, v_dest, v_code, v_expires)
  returning id into v_id;
  perform pg_notify('verification_outbox', v_id::text);
  return jsonb_build_object('channel', p_channel, 'destination', v_dest, 'expires_at', v_expires);
end
$$;
comment on function public.request_verification_code(text) is 'Sends a six-digit code valid 10 minutes to the caller''s e-mail or phone (p_channel ''email''|''phone''), at most one a minute; returns {channel, destination, expires_at}, never the code. The code is stored hashed and queued in app_private.verification_outbox for authsvc to send.';

-- A changed e-mail or phone number is no longer verified, and a code sent to
-- the old one no longer counts. One trigger function; TG_ARGV[0] names the
-- channel whose contact changed (both tables key the user as id).
create function app_private.reset_contact_verification() returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  if tg_argv[0] = 'email' then
    update public.user_verifications v
       set email_verified = false, email_verification_code = null, email_verification_expires_at = null,
           email_verification_attempts = 0, updated_at = now()
     where v.user_id = new.id;
  else
    update public.user_verifications v
       set phone_verified = false, phone_verification_code = null, phone_verification_expires_at = null,
           phone_verification_attempts = 0, updated_at = now()
     where v.user_id = new.id;
  end if;
  delete from app_private.verification_outbox o where o.user_id = new.id and o.channel = tg_argv[0];
  return null;
end
$$;
comment on function app_private.reset_contact_verification() is 'Trigger on an e-mail (auth.users) or phone (profiles) change, channel in TG_ARGV[0]: clears that channel''s verified flag and any pending code.';
create trigger on_auth_user_email_changed after update of email on auth.users
  for each row when (old.email is distinct from new.email)
  execute function app_private.reset_contact_verification('email');
create trigger profiles_phone_changed after update of phone_number on public.profiles
  for each row when (public.normalize_phone_ke(old.phone_number) is distinct from public.normalize_phone_ke(new.phone_number))
  execute function app_private.reset_contact_verification('phone');

-- ---------------------------------------------------------------------------
-- Realtime DELETE events: realtime evaluates the subscriber's SELECT policies
-- on the old row, so every RLS table it publishes keeps the whole old row (a
-- key alone fails an owner policy, and the owner would miss the event).
do $$
declare
  r record;
begin
  for r in
    select pt.schemaname, pt.tablename
      from pg_catalog.pg_publication_tables pt
      join pg_catalog.pg_class c on c.relname = pt.tablename
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace and n.nspname = pt.schemaname
     where pt.pubname = 'supabase_realtime' and c.relrowsecurity and c.relreplident <> 'f'
  loop
    execute format('alter table %I.%I replica identity full', r.schemaname, r.tablename);
  end loop;
end
$$;
select realtime.sync_publication_triggers();

revoke execute on all functions in schema app_private from public;
