-- Search that scales (issue 17, "the app asks for work no user needs").
--
-- The app's free-text search used to be
-- `or=(title.ilike.*q*,location.ilike.*q*,description.ilike.*q*)`: no index
-- can answer an ILIKE over description, so every search read every active
-- listing (~14 req/s at 100k rows). Instead every listing table carries a
-- weighted full-text vector, and the app filters with PostgREST's own `fts`
-- operator on it (`search=fts(english).kilim:*%26bedroom:*`), which a GIN
-- index answers.
--
--   * Weights: title (or name) A, location B, description C; ts_rank_cd
--     then puts a word in the title above the same word in a description.
--   * Configuration: 'english' stems English words (bedrooms -> bedroom,
--     apartments -> apartment) and leaves Kiswahili words as they are
--     (nyumba, vyumba, shamba: the English stemmer has no rule for them), so
--     one vector serves both languages. The app sends every word as a
--     prefix (`kilim:*`), so a half-typed word still finds Kilimani.
--   * `@@` (ts_match_vq) is marked LEAKPROOF, for the reason 0023 gives for
--     LIKE: under RLS a filter that is not leakproof may not become an index
--     condition, and the GIN index would never be used for visitors.
--     ts_match_vq raises no error that depends on the row: the query side is
--     a constant of the request.
--   * public.search_listings() is the /search screen's one call: the best
--     matches of every kind, ranked, with each kind's total.

do $$
begin
  alter function pg_catalog.ts_match_vq(tsvector, tsquery) leakproof;
exception when insufficient_privilege then
  raise warning 'ts_match_vq not marked LEAKPROOF (needs a superuser): full-text search under RLS will not use its index'
    using hint = 'Run the ALTER FUNCTION statement of 0027_listing_search.sql as a superuser.';
end
$$;

-- array_to_string is only STABLE (element output functions may depend on
-- settings); for text[] it cannot, and a generated column needs IMMUTABLE.
create function public.text_array_words(p_words text[]) returns text
  language sql immutable parallel safe
  set search_path = ''
as $$
  select coalesce(string_agg(w, ' '), '') from unnest(p_words) w
$$;
comment on function public.text_array_words(text[]) is 'The elements of a text array joined by spaces (NULL elements skipped), immutable, for the search vectors of 0027.';
grant execute on function public.text_array_words(text[]) to anon, authenticated, service_role;

alter table public.properties add column search tsvector generated always as (
  setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
  || setweight(to_tsvector('english'::regconfig, coalesce(location, '')), 'B')
  || setweight(to_tsvector('english'::regconfig, coalesce(description, '')), 'C')) stored;
alter table public.products add column search tsvector generated always as (
  setweight(to_tsvector('english'::regconfig, coalesce(name, '')), 'A')
  || setweight(to_tsvector('english'::regconfig, coalesce(category, '') || ' ' || coalesce(location, '')), 'B')
  || setweight(to_tsvector('english'::regconfig, coalesce(description, '')), 'C')) stored;
alter table public.lands add column search tsvector generated always as (
  setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
  || setweight(to_tsvector('english'::regconfig, coalesce(location, '')), 'B')
  || setweight(to_tsvector('english'::regconfig, coalesce(description, '')), 'C')) stored;
alter table public.service_providers add column search tsvector generated always as (
  setweight(to_tsvector('english'::regconfig, coalesce(name, '') || ' ' || coalesce(category, '')), 'A')
  || setweight(to_tsvector('english'::regconfig, coalesce(location, '')), 'B')
  || setweight(to_tsvector('english'::regconfig, coalesce(description, '') || ' ' || public.text_array_words(services)), 'C')) stored;

comment on column public.properties.search is 'Full-text vector (english): title A, location B, description C. Filter with fts(english); see 0027_listing_search.sql.';
comment on column public.products.search is 'Full-text vector (english): name A, category and location B, description C.';
comment on column public.lands.search is 'Full-text vector (english): title A, location B, description C.';
comment on column public.service_providers.search is 'Full-text vector (english): name and category A, location B, description and services C.';

create index properties_active_search_idx on public.properties using gin (search) where is_active;
create index products_active_search_idx on public.products using gin (search) where is_active;
create index lands_active_search_idx on public.lands using gin (search) where is_active;
create index service_providers_active_search_idx on public.service_providers using gin (search) where is_active;

-- Visitors read listings column by column (0019); the vector is public.
grant select (search) on public.properties, public.products, public.service_providers to anon;
grant select (search) on public.lands to anon;

-- The words of a search box as a prefix query: every run of letters and
-- digits becomes `word:*`, all required. Operators typed by the user are
-- just separators, so no input can make to_tsquery fail.
create function public.search_query(p_text text) returns tsquery
  language sql immutable parallel safe
  set search_path = ''
as $$
  select to_tsquery('english'::regconfig, coalesce(string_agg(w || ':*', ' & '), ''))
    from regexp_split_to_table(lower(left(coalesce(p_text, ''), 200)), '[^[:alnum:]]+') w
   where w <> ''
$$;
comment on function public.search_query(text) is 'The words of p_text (at most 200 characters) as an english prefix tsquery, all required: ''Kilim 2 bedroom'' -> ''kilim'':* & ''2'':* & ''bedroom'':*. Empty when no word is left.';
grant execute on function public.search_query(text) to anon, authenticated, service_role;

create function public.search_listings(p_query text, p_per_kind integer default 6)
  returns table (kind text, id uuid, title text, location text, price bigint, image text, tag text,
                 created_at timestamptz, rank real, kind_total bigint)
  language sql stable
  set search_path = ''
as $$
  with q as (select public.search_query(p_query) as q),
  hits as (
    select 'property' as kind, t.id, coalesce(t.title, 'Untitled Property') as title, t.location, t.price,
           t.images[1] as image, t.purpose as tag, t.created_at, ts_rank_cd(t.search, q.q) as rank
      from public.properties t, q where t.is_active and t.search @@ q.q
    union all
    select 'product', t.id, t.name, t.location, t.price, t.images[1], t.category, t.created_at, ts_rank_cd(t.search, q.q)
      from public.products t, q where t.is_active and t.search @@ q.q
    union all
    select 'land', t.id, t.title, t.location, t.price, t.images[1], t.purpose, t."createdAt", ts_rank_cd(t.search, q.q)
      from public.lands t, q where t.is_active and t.search @@ q.q
    union all
    select 'service', t.id, t.name, t.location, null::bigint, t.profileimage, t.category, t.created_at, ts_rank_cd(t.search, q.q)
      from public.service_providers t, q where t.is_active and t.search @@ q.q
  ),
  ranked as (
    select h.*, row_number() over (partition by h.kind order by h.rank desc, h.created_at desc, h.id) as n,
           count(*) over (partition by h.kind) as kind_total
      from hits h
  )
  select r.kind, r.id, r.title, r.location, r.price, r.image, r.tag, r.created_at, r.rank, r.kind_total
    from ranked r
   where r.n <= greatest(1, least(coalesce(p_per_kind, 6), 50))
   order by r.kind, r.n
$$;
comment on function public.search_listings(text, integer) is 'The /search screen: active listings of every kind matching the words of p_query (prefixes, english stemming), best first by ts_rank_cd (title over location over description), at most p_per_kind (1-50, default 6) per kind, each row with its kind''s total; tag is the purpose (property, land) or category (product, service). SECURITY INVOKER: the caller''s policies apply.';
grant execute on function public.search_listings(text, integer) to anon, authenticated, service_role;
