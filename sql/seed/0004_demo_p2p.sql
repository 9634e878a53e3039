-- P2P demo: 36 active offers to buy and sell nestcoins, crystals and keys,
-- and a few trades started through lock_currency_in_escrow (so escrow holds
-- exactly the coins of the open trades).

select setseed(0.0254);

insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods,
                               auto_cancel_duration, created_at)
select o.id, a.action, c.currency, a.amount,
       round((c.rate_min + random() * (c.rate_max - c.rate_min))::numeric, 2),
       a.min_limit, greatest(a.min_limit, least(a.amount, a.max_limit)),
       case (g % 5)
         when 0 then array['M-Pesa']
         when 1 then array['M-Pesa', 'Airtel Money']
         when 2 then array['M-Pesa', 'Bank Transfer']
         when 3 then array['Bank Transfer', 'PayPal', 'Skrill']
         else array['M-Pesa', 'T-Kash', 'Airtel Money'] end,
       (array['6 hours', '12 hours', '1 day', '3 days', '7 days', '7 days'])[1 + g % 6],
       now() - make_interval(mins => g * 7)
from generate_series(1, 36) g
join (values (0, '0e5a0000-0000-4000-8000-000000000002'::uuid), (1, '0e5a0000-0000-4000-8000-000000000003'),
             (2, '0e5a0000-0000-4000-8000-000000000004'), (3, '0e5a0000-0000-4000-8000-000000000005'),
             (4, '0e5a0000-0000-4000-8000-000000000006'), (5, '0e5a0000-0000-4000-8000-000000000007'),
             (6, '0e5a0000-0000-4000-8000-000000000008'), (7, '0e5a0000-0000-4000-8000-000000000009')) o(n, id) on o.n = g % 8
join (values (0, 'nestcoins', 1.60, 2.20), (1, 'crystals', 0.50, 1.50), (2, 'keys', 15.00, 40.00)) c(n, currency, rate_min, rate_max)
  on c.n = (g / 8) % 3
cross join lateral (
  select case when g % 3 = 0 then 'buy' else 'sell' end as action,
         (array[100, 150, 200, 250, 300, 500, 750, 1000])[1 + (g * 7) % 8]::bigint
           / case when c.currency = 'keys' then 5 else 1 end as amount,
         (array[10, 10, 20, 25, 50])[1 + g % 5]::bigint as min_limit,
         (array[100, 200, 250, 500])[1 + g % 4]::bigint as max_limit
) a;

-- Trades: Brian buys from Amina's sell offers of nestcoins.
do $$
declare
  v_amina constant uuid := '0e5a0000-0000-4000-8000-000000000002';
  v_brian constant uuid := '0e5a0000-0000-4000-8000-000000000003';
  v_offer uuid;
  v_trade public.p2p_trades;
begin
  -- Amina's own offer with enough room for three small trades.
  insert into public.p2p_offers (user_id, action, currency, amount, rate_per_unit, min_limit, max_limit, payment_methods,
                                 auto_cancel_duration)
  values (v_amina, 'sell', 'nestcoins', 600, 1.95, 20, 200, array['M-Pesa', 'Bank Transfer'], '7 days')
  returning id into v_offer;

  perform set_config('request.jwt.claims', json_build_object('sub', v_brian, 'role', 'authenticated')::text, true);
  -- 1: completed (paid by M-Pesa, released by Amina).
  v_trade := public.lock_currency_in_escrow(v_offer, v_brian, 100, 1.95, 'seed-trade-1');
  perform public.mark_trade_paid(v_trade.id, 'SGK3H8PQ2X');
  perform set_config('request.jwt.claims', json_build_object('sub', v_amina, 'role', 'authenticated')::text, true);
  perform public.release_trade(v_trade.id);
  -- 2: paid, waiting for Amina to release.
  perform set_config('request.jwt.claims', json_build_object('sub', v_brian, 'role', 'authenticated')::text, true);
  v_trade := public.lock_currency_in_escrow(v_offer, v_brian, 50, 1.95, 'seed-trade-2');
  perform public.mark_trade_paid(v_trade.id, 'SGL9Z4RT7M');
  -- 3: just locked in escrow, waiting for Brian to pay.
  perform public.lock_currency_in_escrow(v_offer, v_brian, 40, 1.95, 'seed-trade-3');
  perform set_config('request.jwt.claims', json_build_object('sub', v_brian, 'role', 'authenticated')::text, true);
  insert into public.p2p_trade_messages (trade_id, sender_id, body)
  values (v_trade.id, v_brian, 'Hi Amina, I have sent KES 97.50 by M-Pesa, code SGL9Z4RT7M.');
  insert into public.p2p_trade_messages (trade_id, sender_id, body, created_at)
  values (v_trade.id, v_amina, 'Thanks Brian, checking now.', now() + interval '1 minute');
end
$$;
