-- Admin dashboard statistics (marketplace-spec §2 Dashboard, §3 "Dashboard
-- statistics"), the combined expiry sweep, and the tables streamed to the
-- dashboard over Realtime (spec §7: properties, products, profiles,
-- service_providers, kyc_verifications; plus the P2P tables for live trades).

create function public.get_dashboard_stats() returns jsonb
  language plpgsql stable
  security definer
  set search_path = ''
as $$
begin
  perform app_private.require_admin();
  return jsonb_build_object(
    'totalUsers', (select count(*) from public.profiles),
    'totalProperties', (select count(*) from public.properties),
    'totalProducts', (select count(*) from public.products),
    'totalDroneServices', (select count(*) from public.service_providers s where s.category = 'Drone'),
    'totalMovingServices', (select count(*) from public.service_providers s where s.category = 'Moving'),
    'activeProperties', (select count(*) from public.properties p where p.is_active),
    'activeProducts', (select count(*) from public.products p where p.is_active),
    'pendingProperties', (select count(*) from public.properties p where p.payment_status = 'pending'),
    'pendingProducts', (select count(*) from public.products p where p.payment_status = 'pending'),
    'pendingKYC', (select count(*) from public.kyc_verifications k where k.verification_status = 'pending'));
end
$$;
comment on function public.get_dashboard_stats() is 'Admin dashboard figures with the spec''s field names: totalUsers (profiles), totalProperties, totalProducts, totalDroneServices, totalMovingServices, activeProperties, activeProducts, pendingProperties, pendingProducts (awaiting approval), pendingKYC. Admins only.';
revoke execute on function public.get_dashboard_stats() from public, anon;
grant execute on function public.get_dashboard_stats() to authenticated, service_role;

create function public.run_expiry_sweeps(p_now timestamptz default now()) returns jsonb
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  perform app_private.require_admin();
  return jsonb_build_object(
    'trades', public.expire_overdue_trades(p_now),
    'offers', public.expire_p2p_offers(p_now),
    'listings', public.expire_listings(p_now));
end
$$;
comment on function public.run_expiry_sweeps(timestamptz) is 'Runs every expiry sweep at p_now (overdue trades, lapsed offers, lapsed listings) and returns the counts {trades, offers, listings}. For a scheduler calling as service_role, or an admin.';
revoke execute on function public.run_expiry_sweeps(timestamptz) from public, anon;
grant execute on function public.run_expiry_sweeps(timestamptz) to authenticated, service_role;

alter publication supabase_realtime add table
  public.properties, public.products, public.profiles, public.service_providers, public.kyc_verifications,
  public.p2p_offers, public.p2p_trades, public.p2p_trade_messages;

-- Private helpers are callable only from the functions above (their owner).
revoke execute on all functions in schema app_private from public;
alter default privileges in schema app_private revoke execute on functions from public;
