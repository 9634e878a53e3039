-- Demo balances, posted through the ledger so its invariants hold: coins are
-- issued from the issuance account (issue_currency) or bought (a Nestcoin
-- purchase confirmed the way the M-Pesa callback will confirm it).

select set_config('request.jwt.claims', '{"role":"service_role"}', true);

select public.issue_currency(u.id::uuid, c.currency, c.amount, 'Demo opening balance',
                             'seed:opening:' || u.id || ':' || c.currency)
from (values
  ('0e5a0000-0000-4000-8000-000000000002', 6000, 1200, 300),
  ('0e5a0000-0000-4000-8000-000000000003', 800, 2500, 150),
  ('0e5a0000-0000-4000-8000-000000000004', 1500, 400, 80),
  ('0e5a0000-0000-4000-8000-000000000005', 1200, 900, 60),
  ('0e5a0000-0000-4000-8000-000000000006', 1800, 300, 200),
  ('0e5a0000-0000-4000-8000-000000000007', 900, 1500, 40),
  ('0e5a0000-0000-4000-8000-000000000008', 1100, 600, 120),
  ('0e5a0000-0000-4000-8000-000000000009', 700, 200, 90)
) as u(id, nestcoins, crystals, keys)
cross join lateral (values ('nestcoins', u.nestcoins::bigint), ('crystals', u.crystals::bigint), ('keys', u.keys::bigint)) as c(currency, amount);

-- Amina bought a 'Side Hustle' pack with M-Pesa; Brian has one still pending
-- and one that failed (cancelled on the phone).
do $$
declare
  v_order public.nestcoin_purchases;
begin
  perform set_config('request.jwt.claims', '{"sub":"0e5a0000-0000-4000-8000-000000000002","role":"authenticated"}', true);
  v_order := public.create_nestcoin_purchase((select id from public.nestcoin_packages where name = 'Side Hustle'), '0712345678');
  perform set_config('request.jwt.claims', '{"role":"service_role"}', true);
  perform public.confirm_nestcoin_purchase(v_order.id, 'SGH7K2LQ9P', v_order.amount_kes);

  perform set_config('request.jwt.claims', '{"sub":"0e5a0000-0000-4000-8000-000000000003","role":"authenticated"}', true);
  v_order := public.create_nestcoin_purchase((select id from public.nestcoin_packages where name = 'Hustle Boost'), '+254723456789');
  perform public.create_nestcoin_purchase((select id from public.nestcoin_packages where name = 'Budget Lister'), '0723456789');
  perform set_config('request.jwt.claims', '{"role":"service_role"}', true);
  perform public.fail_nestcoin_purchase(v_order.id, 'Request cancelled by user');
end
$$;
