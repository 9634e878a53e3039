-- The admin users search (0040) kept its plan only while the planner
-- guessed its matches right. Its matches were a subquery joined to
-- auth.users, and the planner sizes an ilike '%…%' from the column's
-- histogram, a sample: when one of a hundred bounds happens to contain the
-- searched text, a search matching 38 users is estimated at 1% of them,
-- and the join turns into a hash join over every user (3,482 pages touched
-- of 4,156 at 100k users, where the index probes touch 135; seen once in
-- sql/tests TestAdminUsersPlans). The matches are now collected first
-- (an array built by an InitPlan from the trigram indexes) and the users
-- read by primary key for them, a plan no estimate can turn into a scan of
-- every user. A search matching nearly everyone probes the key for each
-- (720 against 510 ms for "member" at 100k users; both are the trigram
-- recheck of every row).

create or replace function public.admin_list_users(p_search text default null, p_limit integer default 20, p_offset integer default 0)
  returns table (id uuid, email text, full_name text, phone_number text, role text, created_at timestamptz,
                 last_sign_in_at timestamptz, kyc_status text, is_suspended boolean, suspension_type text,
                 suspension_reason text, suspended_until timestamptz, total_count bigint)
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_search text := nullif(btrim(p_search), '');
  v_like text;
  v_ids uuid[];
  v_total bigint;
begin
  perform app_private.require_admin();
  if p_limit is null or p_limit < 1 or p_limit > 100 then
    raise exception 'Page size must be between 1 and 100' using errcode = 'P0001';
  end if;
  if p_offset is null or p_offset < 0 then
    raise exception 'Offset must not be negative' using errcode = 'P0001';
  end if;
  if v_search is null then
    select count(*) into v_total from auth.users u where u.deleted_at is null;
    select array_agg(x.id order by x.created_at desc, x.id) into v_ids
      from (select u.id, u.created_at from auth.users u where u.deleted_at is null
             order by u.created_at desc, u.id limit p_limit offset p_offset) x;
  else
    v_like := '%' || replace(replace(replace(v_search, '\', '\\'), '%', '\%'), '_', '\_') || '%';
    select array_agg(x.id order by x.created_at desc, x.id), max(x.total) into v_ids, v_total
      from (select u.id, u.created_at, count(*) over () as total
              from auth.users u
             where u.deleted_at is null
               and u.id = any (array(select m.id from auth.users m where m.deleted_at is null and m.email ilike v_like
                                     union
                                     select p.id from public.profiles p where p.full_name ilike v_like or p.phone_number ilike v_like))
             order by u.created_at desc, u.id limit p_limit offset p_offset) x;
  end if;
  return query
    select u.id, u.email::text, p.full_name, p.phone_number, coalesce(r.role, 'user'), u.created_at,
           u.last_sign_in_at, k.verification_status, s.id is not null, s.suspension_type, s.reason,
           s.suspended_until, v_total
      from unnest(v_ids) with ordinality as pg (id, n)
      join auth.users u on u.id = pg.id
      left join public.profiles p on p.id = u.id
      left join public.user_roles r on r.user_id = u.id
      left join public.kyc_verifications k on k.user_id = u.id
      left join lateral (
        select x.id, x.suspension_type, x.reason, x.suspended_until from public.user_suspensions x
         where x.user_id = u.id and x.lifted_at is null and (x.suspended_until is null or x.suspended_until > now())
         order by x.suspended_at desc limit 1) s on true
     order by pg.n;
end
$$;
