-- Plans that stay right under RLS (issue 17, "Row-level security makes the
-- planner misjudge selective filters").
--
-- The listing tables' select policies are already what the planner can use:
-- anon's only policy is exactly `is_active` (so the partial indexes `where
-- is_active` match), owner and admin policies apply to authenticated only,
-- and is_admin() runs once per statement as an initplan. What went wrong is
-- the way PostgreSQL protects rows hidden by a policy:
--
--   * Under RLS a request's own filters run after the policy's, and any of
--     them whose function is not LEAKPROOF may neither use the column's
--     statistics nor become an index condition (selfuncs.c acl_ok,
--     restriction_is_securely_promotable). `location ilike '%kilimani%'`
--     (texticlike) is such a filter: as anon it is estimated from the
--     pattern's letters alone (~0.01 % of rows instead of ~1 %), so the
--     planner expects fewer than 20 rows, stops walking the created_at index
--     and scans and sorts instead (seq scan 50 ms against 1 ms at 100k rows),
--     and the trigram index on location is never usable.
--   * Type, purpose and is_active are compared with leakproof operators, so
--     their statistics are used, but as independent columns; they are not
--     (Sale is mostly Three/Four+ Bedroom and Office Space, for example).
--
-- 1. LIKE and ILIKE on text are marked LEAKPROOF. The only input-dependent
--    error they raise is about the pattern ('LIKE pattern must not end with
--    escape character'); the value side never raises and the result is a
--    boolean. The API always puts the column on the value side
--    (`"location" ILIKE $1`, the pattern bound from the request), so
--    a filter reveals nothing about rows a policy hides. SQL in our own
--    functions and views must keep to that: never use a column of an RLS
--    table as a LIKE pattern. (Catalog flags are per database and are not
--    carried by pg_dump; this migration is where they come from, and the
--    plan tests in sql/tests/plans_test.go fail without them.)
-- 2. One GIN index answers the /properties filter row in a single index
--    scan: type and purpose (btree_gin) with location as trigrams, over
--    active listings only. One estate + type + purpose then reads only the
--    matching rows and sorts those few (0.6 ms at 100k rows, against 35 ms
--    walking created_at and filtering, and 10-80 ms for the old bitmap scan
--    and sort). Any subset of its columns can use it (GIN has no leading
--    column), so it also serves an estate alone when that estate is rare.
-- 3. Extended statistics (functional dependencies and multi-column MCV
--    lists) on the columns the app filters together, for every listing
--    table and the P2P board.

-- Marking a function LEAKPROOF takes a superuser. A migrator that is not
-- one (a managed database) gets a warning and slower plans, not a failure.
do $$
begin
  alter function pg_catalog.textlike(text, text) leakproof;
  alter function pg_catalog.texticlike(text, text) leakproof;
exception when insufficient_privilege then
  raise warning 'LIKE/ILIKE not marked LEAKPROOF (needs a superuser): selective filters under RLS will plan worse'
    using hint = 'Run the two ALTER FUNCTION statements of 0023_listing_plans.sql as a superuser.';
end
$$;

-- btree_gin ships with PostgreSQL (contrib), as pg_trgm does, and is on
-- Supabase's extension list.
create extension if not exists btree_gin with schema extensions;
create index properties_active_filters_gin_idx on public.properties
  using gin (type, purpose, location extensions.gin_trgm_ops) where is_active;
comment on index public.properties_active_filters_gin_idx is 'The /properties filter row (type, purpose, location ilike) over active listings in one GIN scan (issue 17).';

create statistics public.properties_type_purpose_active_stats (dependencies, mcv)
  on type, purpose, is_active from public.properties;
comment on statistics public.properties_type_purpose_active_stats is 'Correlation of type, purpose and is_active for the /properties filters (issue 17).';

create statistics public.lands_type_purpose_active_stats (dependencies, mcv)
  on type, purpose, is_active from public.lands;
comment on statistics public.lands_type_purpose_active_stats is 'Correlation of type, purpose and is_active for the /land filters (issue 17).';

create statistics public.products_category_status_active_stats (dependencies, mcv)
  on category, status, is_active from public.products;
comment on statistics public.products_category_status_active_stats is 'Correlation of category, status and is_active for the marketplace filters (issue 17).';

create statistics public.service_providers_category_active_stats (dependencies, mcv)
  on category, verified, is_active from public.service_providers;
comment on statistics public.service_providers_category_active_stats is 'Correlation of category, verified and is_active for the services filters (issue 17).';

create statistics public.p2p_offers_action_currency_status_stats (dependencies, mcv)
  on action, currency, status from public.p2p_offers;
comment on statistics public.p2p_offers_action_currency_status_stats is 'Correlation of action, currency and status for the P2P board filters (issue 17).';

analyze public.properties, public.lands, public.products, public.service_providers, public.p2p_offers;
