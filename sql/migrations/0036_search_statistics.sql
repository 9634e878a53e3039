-- A rare word's search plan no longer depends on ANALYZE's luck (issue 17).
--
-- PostgreSQL estimates `search @@ 'word:*'` for a word its statistics do not
-- keep as half the frequency of the rarest word they do keep (ts_selfuncs.c:
-- minfreq / 2). At the default statistics target (100) ANALYZE keeps a
-- hundred-odd lexemes of the listing vectors, and which ones depends on its
-- sample: measured on 100k products, the rarest kept frequency was 0.093 %
-- after most ANALYZEs and 0.82 % after some. After the latter a word in ten
-- listings was estimated at 330, walking the created_at index for the 12
-- newest looked cheaper than the GIN index, and the search read every
-- active listing instead of ten (sql/tests/plans_test.go caught it as a
-- flaky plan). A target of 300 keeps about 2,700 lexemes, down to 0.031 %,
-- the same after every ANALYZE: a rare word is estimated at a dozen rows
-- and found through the index. 1000 keeps 6,300, but every plan of a
-- search then reads them all (an EXPLAIN of a search took 195 µs against
-- 120 µs at 300 and 100 µs at 100, on this project's machine), and words
-- asked for now and then are planned on every request (rest/README.md,
-- "Plans for the value"), so that cost is paid often.

alter table public.properties alter column search set statistics 300;
alter table public.products alter column search set statistics 300;
alter table public.lands alter column search set statistics 300;
alter table public.service_providers alter column search set statistics 300;

-- The target applies from the next ANALYZE, which autovacuum runs only once
-- a tenth of a table has changed; the vectors' statistics are taken now.
analyze public.properties (search);
analyze public.products (search);
analyze public.lands (search);
analyze public.service_providers (search);
