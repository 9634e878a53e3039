-- Ranked search at a cost that does not grow with the tables (issue 17).
--
-- search_listings() (0027) ranked every active listing that matched, in all
-- four tables, and counted them all. A word most listings hold (an estate's
-- city, "listing", a half-typed "ap") made it read and rank every row: at
-- 100k properties one call took 0.23-0.29 s for that table alone, and anon
-- may call it.
--
-- Now each kind is read as the app's own search reads it, newest first:
--   * the kind's 500 newest matches are ranked, and the best p_per_kind of
--     those returned. A common word then walks the
--     created_at index until 500 match; a rare one reads its few matches
--     from the GIN index. The statement is planned with the query's value
--     (EXECUTE ... USING), so the planner can tell the two apart; a plan
--     kept for every query could not.
--   * kind_total is exact when fewer than 500 match (they were all read),
--     and otherwise the planner's estimate of the matches, at least 500:
--     PostgREST's count=estimated, which the app's lists use too.
-- Ranking the newest 500 rather than every match is a choice a
-- marketplace can make: past 500 matches the words say little, and what is
-- recent is what is still on offer.

create or replace function public.search_listings(p_query text, p_per_kind integer default 6)
  returns table (kind text, id uuid, title text, location text, price bigint, image text, tag text,
                 created_at timestamptz, rank real, kind_total bigint)
  -- VOLATILE only because PostgreSQL allows EXPLAIN (the estimate below)
  -- in no other function; it writes nothing, and a GET of it still runs
  -- read-only.
  language plpgsql volatile
  set search_path = ''
as $$
declare
  candidates constant integer := 500;
  q tsquery := public.search_query(p_query);
  per_kind integer := greatest(1, least(coalesce(p_per_kind, 6), 50));
  k record;
  estimate bigint;
  plan json;
begin
  -- No word left (empty input, only stop words): nothing matches, and
  -- an empty tsquery would only raise notices.
  if numnode(q) = 0 then
    return;
  end if;
  -- kind, table, the columns of the result row, the creation column.
  for k in
    select * from (values
      ('property', 'properties', 'coalesce(t.title, ''Untitled Property''), t.location, t.price, t.images[1], t.purpose', 'created_at'),
      ('land', 'lands', 't.title, t.location, t.price, t.images[1], t.purpose', '"createdAt"'),
      ('product', 'products', 't.name, t.location, t.price, t.images[1], t.category', 'created_at'),
      ('service', 'service_providers', 't.name, t.location, null::bigint, t.profileimage, t.category', 'created_at')
    ) v(label, tab, cols, created)
    order by 1
  loop
    -- The planner's estimate of the matches, for kind_total past 500
    -- (planning only; no row is read).
    execute format(
      'explain (format json) select 1 from public.%I t where t.is_active and t.search @@ %L::tsquery',
      k.tab, q::text) into plan;
    estimate := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric::bigint;
    return query execute format(
      'select %L::text, c.id, c.title, c.location, c.price, c.image, c.tag, c.created_at,
              ts_rank_cd(c.search, $1), case when c.n < $2 then c.n else greatest($2, $3) end
         from (select m.*, count(*) over () as n
                 from (select t.id, %s, t.%s, t.search
                         from public.%I t
                        where t.is_active and t.search @@ $1
                        order by t.%s desc
                        limit $2) m (id, title, location, price, image, tag, created_at, search)) c
        order by 9 desc, c.created_at desc, c.id
        limit $4',
      k.label, k.cols, k.created, k.tab, k.created) using q, candidates, estimate, per_kind;
  end loop;
end
$$;
comment on function public.search_listings(text, integer) is 'Active listings of every kind matching the words of p_query (prefixes, english stemming): of each kind''s 500 newest matches, the best by ts_rank_cd (title over location over description), at most p_per_kind (1-50, default 6) per kind, ordered by kind then rank; kind_total is the kind''s matches, exact under 500 and the planner''s estimate above. tag is the purpose (property, land) or category (product, service). SECURITY INVOKER: the caller''s policies apply. See 0039_ranked_search_bounded.sql.';
