-- The services sections of /admin read the providers awaiting
-- verification apart from the newest ones (features/admin/api/listings.ts),
-- as the properties and products sections read those awaiting approval
-- (0037). Until now they read only the newest 200 providers of their
-- category, so an unverified provider older than those could not be found
-- there at all, and the section's "unverified first" order covered only
-- the newest. This index serves the new read: the unverified providers of
-- one category, newest first, without reading the verified ones.
--
-- sql/tests/plans_test.go holds the plan.

create index service_providers_unverified_idx on public.service_providers (category, created_at desc) where verified = false;
