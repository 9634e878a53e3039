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
