-- Any signed-in user could call create_nestcoin_purchase (directly, or
-- through the payments service, which then sends an M-Pesa PIN prompt) in
-- a loop: prompts to any number, without limit, and pending rows that the
-- lost-callback sweep, which takes the oldest 100 each tick, had to wade
-- through before reaching real purchases whose callback was lost. A buyer
-- now has at most three purchases waiting for confirmation from the last
-- 15 minutes (the sweep's default expiry); the payments service answers the
-- fourth with 429 too_many_pending.

create or replace function public.create_nestcoin_purchase(p_package_id uuid, p_phone text default null)
  returns public.nestcoin_purchases
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := app_private.require_user();
  v_pkg public.nestcoin_packages;
  v_phone text;
  v_row public.nestcoin_purchases;
begin
  select * into v_pkg from public.nestcoin_packages p where p.id = p_package_id and p.is_active;
  if not found then
    raise exception 'Package not found' using errcode = 'P0001';
  end if;
  v_phone := regexp_replace(coalesce(nullif(btrim(p_phone), ''),
                                     (select pr.phone_number from public.profiles pr where pr.id = v_uid), ''), '[\s\-()]', '', 'g');
  -- M-Pesa wants 2547XXXXXXXX / 2541XXXXXXXX; accept 07.., 01.., +254.. and 254..
  v_phone := case
    when v_phone ~ '^0[17][0-9]{8}$' then '254' || substr(v_phone, 2)
    when v_phone ~ '^\+254[17][0-9]{8}$' then substr(v_phone, 2)
    when v_phone ~ '^254[17][0-9]{8}$' then v_phone
    else null end;
  if v_phone is null then
    raise exception 'Enter a valid M-Pesa phone number' using errcode = 'P0001',
      hint = 'Use a Safaricom number such as 0712345678.';
  end if;
  -- Each purchase sends a PIN prompt to a phone: a few may wait at once.
  perform pg_advisory_xact_lock(hashtextextended('kejanest.purchase:' || v_uid::text, 0));
  if (select count(*) from public.nestcoin_purchases n
       where n.user_id = v_uid and n.status = 'pending' and n.created_at > now() - interval '15 minutes') >= 3 then
    raise exception 'You have payments waiting for confirmation' using errcode = 'P0001',
      hint = 'Answer the M-Pesa prompts on your phone, or wait a few minutes before starting another payment.';
  end if;
  insert into public.nestcoin_purchases (user_id, package_id, coins, amount_kes, phone)
  values (v_uid, v_pkg.id, v_pkg.coins, v_pkg.price, v_phone)
  returning * into v_row;
  return v_row;
end
$$;
comment on function public.create_nestcoin_purchase(uuid, text) is 'Creates a pending purchase order for a package (price and coins copied from it) for the caller, with the M-Pesa phone normalised to 2547XXXXXXXX; refused (''You have payments waiting for confirmation'') while the caller has 3 pending purchases from the last 15 minutes.';
