-- The admin queues read their rows through indexes (issue 17).
--
-- Each listing section of /admin shows the newest 200 listings of its
-- table, active or not, and for properties and products also the newest
-- 200 awaiting approval, read on their own so that one cannot drop out of
-- the queue while newer listings arrive (features/admin/api/queue.ts). The
-- pending read walks properties_pending_idx and products_pending_idx
-- (0010). The newest read had no index to walk: the created_at indexes of
-- 0010 hold active rows only (the public pages) or lead with the owner
-- (own listings), so at 100k listings it scanned the table and sorted all
-- of it on every load of the section (41.5 ms at 100k properties, 0.2 ms
-- walking properties_created_idx). The services sections filter by
-- category, which leads their index.
--
-- /admin/disputes reads the open disputes, the longest waiting first, and
-- the latest resolutions apart (one read of both by last change let a
-- hundred newer resolutions hide an open dispute); each walks its own
-- partial index instead of scanning every trade.
--
-- The admin inbox reads open reports and new contact messages apart from
-- the newest of each (0024's partial indexes serve the former); the newest
-- read walks created_at too. The contact form is public, so its table can
-- grow with spam well past what a scan and sort of every row should cost.
--
-- sql/tests/plans_test.go holds these plans.

create index properties_created_idx on public.properties (created_at desc);
create index products_created_idx on public.products (created_at desc);
create index lands_created_idx on public.lands ("createdAt" desc);
create index service_providers_category_created_idx on public.service_providers (category, created_at desc);

create index p2p_trades_disputed_idx on public.p2p_trades (updated_at) where status = 'disputed';
create index p2p_trades_resolved_idx on public.p2p_trades (updated_at desc) where status = 'resolved';

create index reports_created_idx on public.reports (created_at desc);
create index contact_messages_created_idx on public.contact_messages (created_at desc);
