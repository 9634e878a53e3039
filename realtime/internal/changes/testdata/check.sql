-- Subscription check fixture (check_test.go): one column of each kind of
-- type a filter meets; anon may not see secret.
create type public.mood as enum ('happy', 'sad');
create table public.kinds (
  id bigint primary key,
  n int,
  amount numeric(5,2),
  label text,
  code varchar(3),
  flag boolean,
  at timestamptz,
  ref uuid,
  doc json,
  docb jsonb,
  feeling public.mood,
  nums int[],
  secret text
);
revoke all on public.kinds from anon;
grant select (id, n, amount, label, code, flag, at, ref, doc, docb, feeling, nums) on public.kinds to anon;
grant select on public.kinds to authenticated;
