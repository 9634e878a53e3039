-- RLS delivery fixture: notes visible to their owner or when public; anon
-- may not see the secret column; tags have no RLS; nokey has no primary key.
create table public.notes (
  id bigint generated always as identity primary key,
  owner uuid,
  body text,
  is_public boolean not null default false,
  score int not null default 0,
  secret text
);
alter table public.notes enable row level security;
create policy notes_select_visible on public.notes for select using (is_public or owner = (select auth.uid()));
revoke all on public.notes from anon;
grant select (id, owner, body, is_public, score) on public.notes to anon;
grant select on public.notes to authenticated;

create table public.tags (id int primary key, label text);
grant select on public.tags to anon, authenticated;

create table public.nokey (v text);
grant select on public.nokey to anon, authenticated;

alter publication supabase_realtime add table public.notes, public.tags, public.nokey;

-- claimed: its owner sees a row only while the legacy per-claim setting
-- request.jwt.claim.sub is unset, as under Supabase Realtime, which sets
-- the role and request.jwt.claims alone (TestPoliciesSeeOnlyTheClaimsJSON).
-- Its full replica identity lets a DELETE's old row be checked too.
create table public.claimed (id int primary key, owner uuid not null);
alter table public.claimed replica identity full;
alter table public.claimed enable row level security;
create policy claimed_select_owner on public.claimed for select to authenticated
  using (owner = (select auth.uid()) and coalesce(current_setting('request.jwt.claim.sub', true), '') = '');
grant select on public.claimed to authenticated;
alter publication supabase_realtime add table public.claimed;

-- DELETE visibility fixture (delete_test.go). docs combines permissive and
-- restrictive SELECT policies (one restrictive for every role and command,
-- one for authenticated only), a policy with a correlated subquery and an
-- UPDATE-only policy that must grant no read; anon may not see its secret
-- column. owned and forced belong to rt_test_owner and have RLS without any
-- policy; forced applies it to its owner too.
do $$
begin
  create role rt_test_owner nologin;
exception when duplicate_object then null;
end
$$;
grant rt_test_owner to authenticator;
grant select on public.tags to rt_test_owner;

create table public.doc_shares (doc_id int not null, user_id uuid not null, primary key (doc_id, user_id));

create table public.docs (
  id int primary key,
  owner uuid,
  is_public boolean not null default false,
  archived boolean not null default false,
  region text not null default 'ke',
  secret text
);
alter table public.docs replica identity full;
alter table public.docs enable row level security;
create policy docs_select_public on public.docs for select to anon, authenticated using (is_public);
create policy docs_select_owner on public.docs for select to authenticated using (owner = (select auth.uid()));
create policy docs_select_shared on public.docs for select to authenticated
  using (exists (select 1 from public.doc_shares s where s.doc_id = docs.id and s.user_id = (select auth.uid())));
create policy docs_select_not_archived on public.docs as restrictive for select to authenticated using (not archived);
create policy docs_all_not_hidden on public.docs as restrictive for all using (region <> 'hidden');
create policy docs_update_anyone on public.docs for update using (true);
revoke all on public.docs from anon;
grant select (id, owner, is_public, archived, region) on public.docs to anon;

create table public.owned (id int primary key);
alter table public.owned owner to rt_test_owner;
alter table public.owned replica identity full;
alter table public.owned enable row level security;

create table public.forced (id int primary key);
alter table public.forced owner to rt_test_owner;
alter table public.forced replica identity full;
alter table public.forced enable row level security;
alter table public.forced force row level security;

alter publication supabase_realtime add table public.docs, public.owned, public.forced;
