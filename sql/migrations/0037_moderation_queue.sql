-- The admin moderation queue reads its rows through an index (issue 17).
--
-- Each section of /admin lists the newest 200 listings of its table,
-- active or not, and for properties and products also the newest 200
-- awaiting approval (payment_status pending, read on their own so that one
-- cannot drop out of the queue while newer listings arrive). The pending
-- read walks properties_pending_idx and products_pending_idx (0010). The
-- newest read had no index to walk: the created_at indexes of 0010 hold
-- active rows only (the public pages) or lead with the owner (own
-- listings), so at 100k listings it scanned the table and sorted all of
-- it on every load of the section. These walk created_at over every row;
-- the services one leads with the category, which each services section
-- filters on. sql/tests/plans_test.go holds the plans.

create index properties_created_idx on public.properties (created_at desc);
create index products_created_idx on public.products (created_at desc);
create index lands_created_idx on public.lands ("createdAt" desc);
create index service_providers_category_created_idx on public.service_providers (category, created_at desc);
