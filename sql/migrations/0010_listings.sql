-- Listings (properties, lands, products, service providers) and their
-- Nestcoin fees (marketplace-spec §3, §7, §9).
--
-- Lifecycle of every listing:
--   created by its owner: is_active = false, payment_status = 'unpaid';
--   publish_listing(kind, id, days) charges per-day fee x days from the
--   owner's nestcoins wallet to the fees account, in the same transaction:
--     * properties and products need an admin's approval the first time:
--       payment_status 'pending' (days held in pending_days, fee in
--       pending_fee) until moderate_listing approves (clock starts then,
--       payment_status 'paid', is_active) or rejects (fee refunded,
--       'rejected'; publishing again resubmits);
--     * lands and services, and any listing approved before, go live at
--       once: payment_status 'paid', is_active, paid_until extended;
--   expire_listings(p_now) deactivates listings whose paid_until has passed.
-- Owners may deactivate and (while paid_until is in the future) reactivate
-- their listing, which is how the app's Activate/Deactivate toggle works;
-- they never write payment_status, paid_until or the pending columns
-- (column privileges), and cannot move a paid listing into a dearer fee
-- tier while its paid period runs (trigger).

-- ---------------------------------------------------------------------------
-- Fee table (spec §9 "Nestcoins per day of listing"), readable by everyone:
-- the /pricing tabs and calculator render it.
create table public.listing_fee_rates (
  id integer generated always as identity primary key,
  category text not null
    constraint listing_fee_rates_category_check check (category in ('sale', 'rent', 'services', 'market', 'land')),
  label text not null,
  match_value text,
  min_price bigint,
  max_price bigint,
  per_day integer not null constraint listing_fee_rates_per_day_check check (per_day > 0),
  sort_order integer not null default 0,
  constraint listing_fee_rates_category_label_key unique (category, label),
  constraint listing_fee_rates_match_or_tier check ((match_value is null) = (min_price is not null)),
  constraint listing_fee_rates_tier_bounds check (max_price is null or max_price >= min_price)
);
create unique index listing_fee_rates_match_key on public.listing_fee_rates (category, match_value) where match_value is not null;
comment on table public.listing_fee_rates is 'Nestcoins per day of listing (spec §9). A row matches by listing type (match_value) or by price tier (min_price..max_price, inclusive; max_price NULL = no upper bound). Tabs: sale, rent, services, market, land.';
comment on column public.listing_fee_rates.max_price is 'Inclusive upper bound in KES; NULL for the top tier, which also covers prices above the spec''s stated maximum (150M sale, 500,000 market).';

insert into public.listing_fee_rates (category, label, match_value, min_price, max_price, per_day, sort_order) values
  ('sale', 'Low (0 - 5M KES)', null, 0, 5000000, 75, 1),
  ('sale', 'Mid (5M - 25M KES)', null, 5000001, 25000000, 150, 2),
  ('sale', 'High (25M - 150M KES)', null, 25000001, null, 225, 3),
  ('rent', 'Single Room', 'Single Room', null, null, 28, 1),
  ('rent', 'Bedsitter', 'Bedsitter', null, null, 33, 2),
  ('rent', 'One Bedroom', 'One Bedroom', null, null, 45, 3),
  ('rent', 'Two Bedroom', 'Two Bedroom', null, null, 55, 4),
  ('rent', 'Three Bedroom', 'Three Bedroom', null, null, 65, 5),
  ('rent', 'Four+ Bedroom', 'Four+ Bedroom', null, null, 75, 6),
  ('rent', 'Vacation/Airbnb', 'Vacation/Airbnb', null, null, 75, 7),
  ('rent', 'Office Space', 'Office Space', null, null, 85, 8),
  ('rent', 'Retail Space', 'Retail Space', null, null, 75, 9),
  ('rent', 'Warehouse', 'Warehouse', null, null, 100, 10),
  ('services', 'Drone Based', 'Drone', null, null, 40, 1),
  ('services', 'Moving Based', 'Moving', null, null, 35, 2),
  ('market', 'Low (0 - 10,000 KES)', null, 0, 10000, 18, 1),
  ('market', 'Mid (10,001 - 100,000 KES)', null, 10001, 100000, 33, 2),
  ('market', 'High (100,001 - 500,000 KES)', null, 100001, null, 45, 3),
  ('land', 'Residential', 'Residential', null, null, 60, 1),
  ('land', 'Commercial', 'Commercial', null, null, 90, 2),
  ('land', 'Agricultural', 'Agricultural', null, null, 45, 3),
  ('land', 'Industrial', 'Industrial', null, null, 105, 4),
  ('land', 'Mixed Use', 'Mixed Use', null, null, 90, 5);

alter table public.listing_fee_rates enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.listing_fee_rates from anon;
revoke truncate, references, trigger on public.listing_fee_rates from authenticated;
create policy listing_fee_rates_select_public on public.listing_fee_rates for select to anon, authenticated
  using (true);
create policy listing_fee_rates_insert_admin on public.listing_fee_rates for insert to authenticated
  with check ((select public.is_admin()));
create policy listing_fee_rates_update_admin on public.listing_fee_rates for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy listing_fee_rates_delete_admin on public.listing_fee_rates for delete to authenticated
  using ((select public.is_admin()));

create function public.listing_fee_per_day(p_kind text, p_type text, p_purpose text default null, p_price bigint default null)
  returns integer
  language sql stable
  set search_path = ''
as $$
  select r.per_day
    from public.listing_fee_rates r
   where case p_kind
           when 'property' then
             case when p_purpose = 'Sale'
                  then r.category = 'sale' and p_price >= r.min_price and (r.max_price is null or p_price <= r.max_price)
                  else r.category = 'rent' and r.match_value = p_type end
           when 'product' then
             r.category = 'market' and p_price >= r.min_price and (r.max_price is null or p_price <= r.max_price)
           when 'service' then r.category = 'services' and r.match_value = p_type
           when 'land' then r.category = 'land' and r.match_value = p_type
           else false
         end
   order by r.per_day desc
   limit 1
$$;
comment on function public.listing_fee_per_day(text, text, text, bigint) is 'Nestcoins per day for a listing (spec §9): p_kind property (Rent by type, Sale by price tier), product (price tier), service (type Drone|Moving), land (type). NULL when nothing matches.';
grant execute on function public.listing_fee_per_day(text, text, text, bigint) to anon, authenticated, service_role;

-- ---------------------------------------------------------------------------
-- The tables. Owner columns and names are the app's (spec §3).
create table public.properties (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  title text,
  type text not null default 'Single Room'
    constraint properties_type_check check (type in ('Single Room', 'Bedsitter', 'One Bedroom', 'Two Bedroom',
      'Three Bedroom', 'Four+ Bedroom', 'Vacation/Airbnb', 'Office Space', 'Retail Space', 'Warehouse')),
  purpose text not null default 'Rent' constraint properties_purpose_check check (purpose in ('Rent', 'Sale')),
  price bigint not null constraint properties_price_check check (price >= 0),
  price_unit text not null default 'month',
  location text,
  description text,
  deposit bigint constraint properties_deposit_check check (deposit >= 0),
  images text[] not null default '{}',
  contact text,
  is_active boolean not null default false,
  payment_status text not null default 'unpaid'
    constraint properties_payment_status_check check (payment_status in ('unpaid', 'pending', 'paid', 'rejected')),
  paid_until timestamptz,
  pending_days integer not null default 0 constraint properties_pending_days_check check (pending_days >= 0),
  pending_fee bigint not null default 0 constraint properties_pending_fee_check check (pending_fee >= 0),
  moderation_notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint properties_active_requires_payment check (not is_active or payment_status = 'paid')
);
create index properties_active_created_idx on public.properties (created_at desc) where is_active;
create index properties_active_type_purpose_idx on public.properties (type, purpose, created_at desc) where is_active;
create index properties_location_trgm_idx on public.properties using gin (location extensions.gin_trgm_ops);
create index properties_user_created_idx on public.properties (user_id, created_at desc);
create index properties_pending_idx on public.properties (created_at) where payment_status = 'pending';
create index properties_paid_until_idx on public.properties (paid_until) where is_active;
comment on table public.properties is 'Rental and for-sale properties (spec §3). Prices in whole KES; deposit for rentals only. Visible to everyone while is_active; owners and admins see the rest.';
comment on column public.properties.title is 'NULL displays as ''Untitled Property''.';
comment on column public.properties.location is 'Free text (e.g. ''Kilimani, Nairobi''); the app filters with ilike (trigram index). NULL displays as ''Location not specified''.';
comment on column public.properties.description is 'NULL displays as ''No description available''.';
comment on column public.properties.payment_status is 'unpaid (never published), pending (fee paid, awaiting admin approval), paid (approved / live period bought), rejected (refunded). Written only by publish_listing and moderate_listing.';
comment on column public.properties.paid_until is 'End of the paid listing period; expire_listings deactivates the listing after it.';

create table public.lands (
  id uuid primary key default gen_random_uuid(),
  userid uuid not null default auth.uid() references auth.users (id) on delete cascade,
  title text not null constraint lands_title_check check (char_length(btrim(title)) > 0),
  location text not null constraint lands_location_check check (char_length(btrim(location)) > 0),
  description text,
  type text not null default 'Residential'
    constraint lands_type_check check (type in ('Residential', 'Commercial', 'Agricultural', 'Industrial', 'Mixed Use')),
  purpose text not null default 'Sale' constraint lands_purpose_check check (purpose in ('Sale', 'Lease')),
  price bigint not null constraint lands_price_check check (price >= 0),
  size numeric(14, 4) constraint lands_size_check check (size > 0),
  "sizeUnit" text not null default 'acres',
  features text[] not null default '{}',
  images text[] not null default '{}',
  is_active boolean not null default false,
  payment_status text not null default 'unpaid'
    constraint lands_payment_status_check check (payment_status in ('unpaid', 'pending', 'paid', 'rejected')),
  paid_until timestamptz,
  pending_days integer not null default 0 constraint lands_pending_days_check check (pending_days >= 0),
  pending_fee bigint not null default 0 constraint lands_pending_fee_check check (pending_fee >= 0),
  moderation_notes text,
  "createdAt" timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint lands_active_requires_payment check (not is_active or payment_status = 'paid')
);
create index lands_active_created_idx on public.lands ("createdAt" desc) where is_active;
create index lands_active_price_idx on public.lands (price) where is_active;
create index lands_active_type_purpose_idx on public.lands (type, purpose) where is_active;
create index lands_location_trgm_idx on public.lands using gin (location extensions.gin_trgm_ops);
create index lands_title_trgm_idx on public.lands using gin (title extensions.gin_trgm_ops);
create index lands_userid_created_idx on public.lands (userid, "createdAt" desc);
create index lands_paid_until_idx on public.lands (paid_until) where is_active;
comment on table public.lands is 'Land for sale or lease (spec §3); column names as the app reads them (userid, "sizeUnit", "createdAt"). Price in whole KES (per month for leases).';
comment on column public.lands."sizeUnit" is 'Unit of size, e.g. acres (default), hectares, sqm.';
comment on column public.lands.payment_status is 'unpaid, paid, (pending/rejected are not used: land goes live on payment). Written only by the fee functions.';

create table public.products (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  name text not null constraint products_name_check check (char_length(btrim(name)) > 0),
  price bigint not null constraint products_price_check check (price >= 0),
  status text not null default 'Used' constraint products_status_check check (status in ('New', 'Used')),
  category text not null default 'Other'
    constraint products_category_check check (category in ('Furniture', 'Electronics', 'Kitchen', 'Bedroom', 'Bathroom',
      'Decor', 'Lighting', 'Appliances', 'Storage', 'Other')),
  description text,
  location text,
  images text[] not null default '{}',
  contact text,
  value_range text not null default 'Basic',
  is_active boolean not null default false,
  payment_status text not null default 'unpaid'
    constraint products_payment_status_check check (payment_status in ('unpaid', 'pending', 'paid', 'rejected')),
  paid_until timestamptz,
  pending_days integer not null default 0 constraint products_pending_days_check check (pending_days >= 0),
  pending_fee bigint not null default 0 constraint products_pending_fee_check check (pending_fee >= 0),
  moderation_notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint products_active_requires_payment check (not is_active or payment_status = 'paid')
);
create index products_active_created_idx on public.products (created_at desc) where is_active;
create index products_active_category_status_idx on public.products (category, status, created_at desc) where is_active;
create index products_location_trgm_idx on public.products using gin (location extensions.gin_trgm_ops);
create index products_user_created_idx on public.products (user_id, created_at desc);
create index products_pending_idx on public.products (created_at) where payment_status = 'pending';
create index products_paid_until_idx on public.products (paid_until) where is_active;
comment on table public.products is 'Marketplace (household and other) items (spec §3): New or Used, category, whole-KES price.';
comment on column public.products.value_range is 'Free-text value band shown by the app; default Basic.';
comment on column public.products.payment_status is 'unpaid, pending (awaiting admin approval), paid, rejected. Written only by publish_listing and moderate_listing.';

create table public.service_providers (
  id uuid primary key default gen_random_uuid(),
  userid uuid not null default auth.uid() references auth.users (id) on delete cascade,
  name text not null constraint service_providers_name_check check (char_length(btrim(name)) > 0),
  category text not null constraint service_providers_category_check check (category in ('Drone', 'Moving')),
  location text,
  description text,
  services text[] not null default '{}',
  pricing jsonb not null default '[]' constraint service_providers_pricing_check check (jsonb_typeof(pricing) = 'array'),
  reviews jsonb not null default '[]' constraint service_providers_reviews_check check (jsonb_typeof(reviews) = 'array'),
  rating numeric(2, 1) constraint service_providers_rating_check check (rating between 0 and 5),
  verified boolean not null default false,
  phone text,
  profileimage text,
  is_active boolean not null default false,
  payment_status text not null default 'unpaid'
    constraint service_providers_payment_status_check check (payment_status in ('unpaid', 'pending', 'paid', 'rejected')),
  paid_until timestamptz,
  pending_days integer not null default 0 constraint service_providers_pending_days_check check (pending_days >= 0),
  pending_fee bigint not null default 0 constraint service_providers_pending_fee_check check (pending_fee >= 0),
  moderation_notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint service_providers_active_requires_payment check (not is_active or payment_status = 'paid')
);
create index service_providers_active_created_idx on public.service_providers (created_at desc) where is_active;
create index service_providers_active_category_idx on public.service_providers (category) where is_active;
create index service_providers_category_idx on public.service_providers (category);
create index service_providers_userid_created_idx on public.service_providers (userid, created_at desc);
create index service_providers_paid_until_idx on public.service_providers (paid_until) where is_active;
comment on table public.service_providers is 'Home service providers (spec §3): category Drone or Moving, services list, pricing [{title, price, duration}] and reviews as JSON arrays, rating (NULL shows ''New''), verified by an admin.';
comment on column public.service_providers.category is 'Drone or Moving. (The original dashboard counted ''Drone Services''/''Moving Services''; get_dashboard_stats counts the stored values.)';
comment on column public.service_providers.verified is 'Set by admins through verify_service_provider; the card shows Verified or ''Pending Verification''.';

-- ---------------------------------------------------------------------------
-- One guard for all four tables.
create function app_private.listing_guard() returns trigger
  language plpgsql
  set search_path = ''
as $$
declare
  v_kind text := case tg_table_name when 'properties' then 'property' when 'lands' then 'land'
                                    when 'products' then 'product' else 'service' end;
  v_old jsonb;
  v_new jsonb;
  v_old_rate integer;
  v_new_rate integer;
begin
  -- Normalisations, whoever writes.
  -- (Nested IFs: a record field is resolved even where AND would short-cut.)
  if tg_table_name = 'properties' then
    if new.purpose = 'Sale' then
      new.deposit := null;  -- deposits exist for rentals only
    end if;
  end if;
  if tg_table_name = 'service_providers' then
    -- The app may send pricing/reviews as JSON text; store the array itself.
    if jsonb_typeof(new.pricing) = 'string' then new.pricing := (new.pricing #>> '{}')::jsonb; end if;
    if jsonb_typeof(new.reviews) = 'string' then new.reviews := (new.reviews #>> '{}')::jsonb; end if;
  end if;
  if tg_op = 'INSERT' or current_user not in ('anon', 'authenticated') or public.is_admin() then
    return new;
  end if;
  if new.is_active and not old.is_active
     and not (new.payment_status = 'paid' and new.paid_until is not null and new.paid_until > now()) then
    raise exception 'Pay the listing fee to activate this listing' using errcode = 'P0001',
      hint = 'Publish the listing with Nestcoins (publish_listing).';
  end if;
  if old.payment_status = 'pending' or old.paid_until > now() then
    v_old := to_jsonb(old);
    v_new := to_jsonb(new);
    v_old_rate := public.listing_fee_per_day(v_kind, coalesce(v_old ->> 'type', v_old ->> 'category'), v_old ->> 'purpose', (v_old ->> 'price')::bigint);
    v_new_rate := public.listing_fee_per_day(v_kind, coalesce(v_new ->> 'type', v_new ->> 'category'), v_new ->> 'purpose', (v_new ->> 'price')::bigint);
    if v_new_rate is null or v_new_rate > coalesce(v_old_rate, 0) then
      raise exception 'This change moves the listing to a higher fee tier' using errcode = 'P0001',
        detail = format('The listing was paid at %s Nestcoins per day; the change costs %s per day.', v_old_rate, v_new_rate),
        hint = 'Make the change after the paid period ends.';
    end if;
  end if;
  return new;
end
$$;
comment on function app_private.listing_guard() is 'Trigger on listing tables: normalises deposit and JSON columns; for owners, refuses activating an unpaid listing and moving a paid or pending listing into a dearer fee tier.';

do $$
declare
  t text;
begin
  foreach t in array array['properties', 'lands', 'products', 'service_providers'] loop
    execute format('create trigger %I before insert or update on public.%I for each row execute function app_private.listing_guard()',
                   t || '_guard', t);
    execute format('create trigger %I before update on public.%I for each row execute function app_private.set_updated_at()',
                   t || '_set_updated_at', t);
  end loop;
end
$$;

-- Privileges: owners write content columns and is_active only.
revoke insert, update, delete, truncate, references, trigger on public.properties, public.lands, public.products, public.service_providers from anon;
revoke insert, update, truncate, references, trigger on public.properties, public.lands, public.products, public.service_providers from authenticated;
grant insert (user_id, title, type, purpose, price, price_unit, location, description, deposit, images, contact)
  on public.properties to authenticated;
grant update (title, type, purpose, price, price_unit, location, description, deposit, images, contact, is_active)
  on public.properties to authenticated;
grant insert (userid, title, location, description, type, purpose, price, size, "sizeUnit", features, images)
  on public.lands to authenticated;
grant update (title, location, description, type, purpose, price, size, "sizeUnit", features, images, is_active)
  on public.lands to authenticated;
grant insert (user_id, name, price, status, category, description, location, images, contact, value_range)
  on public.products to authenticated;
grant update (name, price, status, category, description, location, images, contact, value_range, is_active)
  on public.products to authenticated;
grant insert (userid, name, category, location, description, services, pricing, phone, profileimage)
  on public.service_providers to authenticated;
grant update (name, category, location, description, services, pricing, phone, profileimage, is_active)
  on public.service_providers to authenticated;

-- RLS: active listings for everyone, the rest for owners and admins.
alter table public.properties enable row level security;
create policy properties_select_public on public.properties for select to anon, authenticated using (is_active);
create policy properties_select_owner on public.properties for select to authenticated using (user_id = (select auth.uid()));
create policy properties_select_admin on public.properties for select to authenticated using ((select public.is_admin()));
create policy properties_insert_owner on public.properties for insert to authenticated with check (user_id = (select auth.uid()));
create policy properties_update_owner on public.properties for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy properties_update_admin on public.properties for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy properties_delete_owner on public.properties for delete to authenticated using (user_id = (select auth.uid()));
create policy properties_delete_admin on public.properties for delete to authenticated using ((select public.is_admin()));

alter table public.lands enable row level security;
create policy lands_select_public on public.lands for select to anon, authenticated using (is_active);
create policy lands_select_owner on public.lands for select to authenticated using (userid = (select auth.uid()));
create policy lands_select_admin on public.lands for select to authenticated using ((select public.is_admin()));
create policy lands_insert_owner on public.lands for insert to authenticated with check (userid = (select auth.uid()));
create policy lands_update_owner on public.lands for update to authenticated
  using (userid = (select auth.uid())) with check (userid = (select auth.uid()));
create policy lands_update_admin on public.lands for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy lands_delete_owner on public.lands for delete to authenticated using (userid = (select auth.uid()));
create policy lands_delete_admin on public.lands for delete to authenticated using ((select public.is_admin()));

alter table public.products enable row level security;
create policy products_select_public on public.products for select to anon, authenticated using (is_active);
create policy products_select_owner on public.products for select to authenticated using (user_id = (select auth.uid()));
create policy products_select_admin on public.products for select to authenticated using ((select public.is_admin()));
create policy products_insert_owner on public.products for insert to authenticated with check (user_id = (select auth.uid()));
create policy products_update_owner on public.products for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy products_update_admin on public.products for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy products_delete_owner on public.products for delete to authenticated using (user_id = (select auth.uid()));
create policy products_delete_admin on public.products for delete to authenticated using ((select public.is_admin()));

alter table public.service_providers enable row level security;
create policy service_providers_select_public on public.service_providers for select to anon, authenticated using (is_active);
create policy service_providers_select_owner on public.service_providers for select to authenticated using (userid = (select auth.uid()));
create policy service_providers_select_admin on public.service_providers for select to authenticated using ((select public.is_admin()));
create policy service_providers_insert_owner on public.service_providers for insert to authenticated with check (userid = (select auth.uid()));
create policy service_providers_update_owner on public.service_providers for update to authenticated
  using (userid = (select auth.uid())) with check (userid = (select auth.uid()));
create policy service_providers_update_admin on public.service_providers for update to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));
create policy service_providers_delete_owner on public.service_providers for delete to authenticated using (userid = (select auth.uid()));
create policy service_providers_delete_admin on public.service_providers for delete to authenticated using ((select public.is_admin()));

-- ---------------------------------------------------------------------------
-- Fee functions.
create function app_private.listing_table(p_kind text, out table_name text, out owner_column text)
  language sql immutable
  set search_path = ''
as $$
  select m.t, m.o
    from (values ('property', 'properties', 'user_id'), ('land', 'lands', 'userid'),
                 ('product', 'products', 'user_id'), ('service', 'service_providers', 'userid')) m(k, t, o)
   where m.k = p_kind
$$;
comment on function app_private.listing_table(text) is 'Maps a listing kind (property, land, product, service) to its table and owner column.';

create function app_private.listing_row(p_kind text, p_listing_id uuid, p_lock boolean) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_table text;
  v_row jsonb;
begin
  select l.table_name into v_table from app_private.listing_table(p_kind) l;
  if v_table is null then
    raise exception 'Listing kind must be property, land, product or service' using errcode = 'P0001';
  end if;
  execute format('select to_jsonb(t) from public.%I t where t.id = $1 %s', v_table,
                 case when p_lock then 'for update' else '' end)
    into v_row using p_listing_id;
  if v_row is null then
    raise exception 'Listing not found' using errcode = 'P0001';
  end if;
  return v_row;
end
$$;
comment on function app_private.listing_row(text, uuid, boolean) is 'A listing as JSON (optionally locked FOR UPDATE); raises ''Listing not found''.';

create function app_private.listing_rate(p_kind text, p_row jsonb) returns integer
  language plpgsql stable
  set search_path = ''
as $$
declare
  v_rate integer := public.listing_fee_per_day(p_kind, coalesce(p_row ->> 'type', p_row ->> 'category'),
                                               p_row ->> 'purpose', (p_row ->> 'price')::bigint);
begin
  if v_rate is null then
    raise exception 'No listing fee applies to this listing' using errcode = 'P0001',
      detail = 'Check its type, purpose and price.';
  end if;
  return v_rate;
end
$$;
comment on function app_private.listing_rate(text, jsonb) is 'The per-day Nestcoin fee of a listing row (spec §9); raises when none applies.';

create function public.quote_listing_fee(p_kind text, p_listing_id uuid, p_days integer default 1) returns jsonb
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_row jsonb;
  v_rate integer;
  v_balance bigint;
begin
  v_row := app_private.listing_row(p_kind, p_listing_id, false);
  v_rate := app_private.listing_rate(p_kind, v_row);
  select w.balance into v_balance from public.wallets w
   where w.user_id = (select auth.uid()) and w.currency = 'nestcoins' and w.kind = 'user';
  return jsonb_build_object('per_day', v_rate, 'days', greatest(coalesce(p_days, 1), 1),
                            'total', v_rate::bigint * greatest(coalesce(p_days, 1), 1),
                            'balance', coalesce(v_balance, 0),
                            'can_afford', coalesce(v_balance, 0) >= v_rate::bigint * greatest(coalesce(p_days, 1), 1));
end
$$;
comment on function public.quote_listing_fee(text, uuid, integer) is 'Cost of publishing a listing for p_days (per_day, total) and whether the caller''s Nestcoin balance covers it; charges nothing.';
revoke execute on function public.quote_listing_fee(text, uuid, integer) from public, anon;
grant execute on function public.quote_listing_fee(text, uuid, integer) to authenticated, service_role;

create function public.publish_listing(p_kind text, p_listing_id uuid, p_days integer, p_idempotency_key text default null)
  returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_table text;
  v_owner_col text;
  v_row jsonb;
  v_owner uuid;
  v_uid uuid;
  v_rate integer;
  v_total bigint;
  v_post record;
  v_now timestamptz := now();
begin
  select l.table_name, l.owner_column into v_table, v_owner_col from app_private.listing_table(p_kind) l;
  if v_table is null then
    raise exception 'Listing kind must be property, land, product or service' using errcode = 'P0001';
  end if;
  if not app_private.is_service() then
    v_uid := app_private.require_user();
  end if;
  if p_days is null or p_days < 1 then
    raise exception 'Days must be at least 1' using errcode = 'P0001';
  end if;
  if p_days > 365 then
    raise exception 'A listing can be paid for at most 365 days at a time' using errcode = 'P0001';
  end if;
  v_row := app_private.listing_row(p_kind, p_listing_id, true);
  v_owner := (v_row ->> v_owner_col)::uuid;
  if v_uid is not null and v_owner <> v_uid then
    raise exception 'You can only publish your own listings' using errcode = '42501';
  end if;
  v_rate := app_private.listing_rate(p_kind, v_row);
  v_total := v_rate::bigint * p_days;
  select * into v_post
    from app_private.post_transfer(app_private.user_wallet(v_owner, 'nestcoins'), app_private.system_wallet('fees', 'nestcoins'),
                                   v_total, 'listing_fee',
                                   'listing:' || p_kind || ':' || p_listing_id::text || ':' || coalesce(p_idempotency_key, gen_random_uuid()::text),
                                   null, p_kind || ':' || p_listing_id::text,
                                   format('%s days at %s Nestcoins per day', p_days, v_rate),
                                   'Insufficient Nestcoins balance');
  if not v_post.replayed then
    if p_kind in ('property', 'product') and v_row ->> 'payment_status' <> 'paid' then
      execute format('update public.%I set payment_status = ''pending'', is_active = false,
                        pending_days = pending_days + $2, pending_fee = pending_fee + $3 where id = $1', v_table)
        using p_listing_id, p_days, v_total;
    else
      execute format('update public.%I set payment_status = ''paid'', is_active = true,
                        paid_until = greatest(coalesce(paid_until, $3), $3) + make_interval(days => $2) where id = $1', v_table)
        using p_listing_id, p_days, v_now;
    end if;
  end if;
  v_row := app_private.listing_row(p_kind, p_listing_id, false);
  return jsonb_build_object(
    'kind', p_kind, 'listing_id', p_listing_id, 'days', p_days, 'per_day', v_rate, 'total', v_total,
    'replayed', v_post.replayed, 'transfer_id', v_post.transfer_id,
    'is_active', (v_row ->> 'is_active')::boolean, 'payment_status', v_row ->> 'payment_status',
    'paid_until', v_row -> 'paid_until', 'pending_days', (v_row ->> 'pending_days')::integer,
    'balance', (select w.balance from public.wallets w where w.user_id = v_owner and w.currency = 'nestcoins' and w.kind = 'user'));
end
$$;
comment on function public.publish_listing(text, uuid, integer, text) is 'Publishes or extends the caller''s listing (p_kind property|land|product|service) for p_days (1-365): charges the spec §9 per-day fee x days from their Nestcoins to the fees account in one transaction; properties/products await admin approval the first time (payment_status pending), others go live (paid, is_active, paid_until). A repeated p_idempotency_key charges once.';
revoke execute on function public.publish_listing(text, uuid, integer, text) from public, anon;
grant execute on function public.publish_listing(text, uuid, integer, text) to authenticated, service_role;

create function public.moderate_listing(p_kind text, p_listing_id uuid, p_action text, p_notes text default null)
  returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_table text;
  v_owner_col text;
  v_row jsonb;
  v_fee bigint;
  v_now timestamptz := now();
begin
  if p_action is null or p_action not in ('approved', 'rejected') then
    raise exception 'Action must be approved or rejected' using errcode = 'P0001';
  end if;
  select l.table_name, l.owner_column into v_table, v_owner_col from app_private.listing_table(p_kind) l;
  v_row := app_private.listing_row(p_kind, p_listing_id, true);
  if v_row ->> 'payment_status' <> 'pending' then
    raise exception 'Only listings pending review can be moderated' using errcode = 'P0001',
      detail = format('This listing is %s.', v_row ->> 'payment_status');
  end if;
  if p_action = 'approved' then
    execute format('update public.%I set payment_status = ''paid'', is_active = true,
                      paid_until = greatest(coalesce(paid_until, $2), $2) + make_interval(days => pending_days),
                      pending_days = 0, pending_fee = 0, moderation_notes = $3 where id = $1', v_table)
      using p_listing_id, v_now, nullif(btrim(p_notes), '');
  else
    v_fee := (v_row ->> 'pending_fee')::bigint;
    if v_fee > 0 then
      perform app_private.post_transfer(app_private.system_wallet('fees', 'nestcoins'),
                                        app_private.user_wallet((v_row ->> v_owner_col)::uuid, 'nestcoins'),
                                        v_fee, 'listing_refund',
                                        'listing-refund:' || p_kind || ':' || p_listing_id::text || ':' || gen_random_uuid()::text,
                                        null, p_kind || ':' || p_listing_id::text, 'Listing rejected: fee refunded');
    end if;
    execute format('update public.%I set payment_status = ''rejected'', is_active = false,
                      pending_days = 0, pending_fee = 0, moderation_notes = $2 where id = $1', v_table)
      using p_listing_id, nullif(btrim(p_notes), '');
  end if;
  return app_private.listing_row(p_kind, p_listing_id, false);
end
$$;
comment on function public.moderate_listing(text, uuid, text, text) is 'Admin review of a listing pending approval: approved starts its paid period (is_active), rejected refunds the pending fee; other states are refused. Admins only.';
revoke execute on function public.moderate_listing(text, uuid, text, text) from public, anon;
grant execute on function public.moderate_listing(text, uuid, text, text) to authenticated, service_role;

create function public.verify_service_provider(p_service_id uuid, p_verified boolean default true)
  returns public.service_providers
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_row public.service_providers;
begin
  update public.service_providers s set verified = coalesce(p_verified, true) where s.id = p_service_id
  returning * into v_row;
  if not found then
    raise exception 'Service provider not found' using errcode = 'P0001';
  end if;
  return v_row;
end
$$;
comment on function public.verify_service_provider(uuid, boolean) is 'Marks a service provider verified (or not). Admins only.';
revoke execute on function public.verify_service_provider(uuid, boolean) from public, anon;
grant execute on function public.verify_service_provider(uuid, boolean) to authenticated, service_role;

create function public.expire_listings(p_now timestamptz default now()) returns integer
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_total integer := 0;
  v_n integer;
begin
  update public.properties set is_active = false where is_active and paid_until <= p_now;
  get diagnostics v_n = row_count; v_total := v_total + v_n;
  update public.lands set is_active = false where is_active and paid_until <= p_now;
  get diagnostics v_n = row_count; v_total := v_total + v_n;
  update public.products set is_active = false where is_active and paid_until <= p_now;
  get diagnostics v_n = row_count; v_total := v_total + v_n;
  update public.service_providers set is_active = false where is_active and paid_until <= p_now;
  get diagnostics v_n = row_count; v_total := v_total + v_n;
  return v_total;
end
$$;
comment on function public.expire_listings(timestamptz) is 'Sweep: deactivates listings whose paid_until is at or before p_now (default now()); returns how many. Admins and service_role only.';
revoke execute on function public.expire_listings(timestamptz) from public, anon;
grant execute on function public.expire_listings(timestamptz) to authenticated, service_role;
