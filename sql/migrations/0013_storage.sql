-- Supabase Storage's tables (storage.buckets, storage.objects) column for
-- column, its path helpers, Row Level Security on both tables, and the app's
-- buckets: images (public listing photos), avatars (public, keyed by user id,
-- 2 MB, JPG/PNG/GIF, owner-only writes) and kyc (private identity documents,
-- readable by their owner and by admins).
--
-- The storage service connects as authenticator and switches to the caller's
-- role (anon, authenticated, service_role) with the JWT claims set, so the
-- policies below decide every read and write; service_role bypasses them.

create table storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean not null default false,
  file_size_limit bigint constraint buckets_file_size_limit_check check (file_size_limit is null or file_size_limit > 0),
  allowed_mime_types text[],
  type text not null default 'STANDARD' constraint buckets_type_check check (type in ('STANDARD', 'ANALYTICS')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index bname on storage.buckets (name);
comment on table storage.buckets is 'Storage buckets: public flag, size limit and allowed MIME types (Supabase Storage layout).';
comment on column storage.buckets.owner is 'Deprecated upstream in favour of owner_id; both hold the creator''s JWT sub.';
comment on column storage.buckets.file_size_limit is 'Largest object in bytes; NULL means the service''s FILE_SIZE_LIMIT.';
comment on column storage.buckets.allowed_mime_types is 'MIME types accepted on upload (type/* wildcards allowed); NULL or empty accepts any.';

create table storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  metadata jsonb,
  user_metadata jsonb,
  version text,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now()
);
create unique index bucketid_objname on storage.objects (bucket_id, name);
create index name_prefix_search on storage.objects (bucket_id, name collate "C");
comment on table storage.objects is 'Object metadata; the bytes live in the backend (file or S3) under bucket/name/version.';
comment on column storage.objects.metadata is 'Server-written: eTag, size, mimetype, cacheControl, lastModified, contentLength, httpStatusCode.';
comment on column storage.objects.user_metadata is 'Client-supplied metadata (x-metadata header or metadata form field).';
comment on column storage.objects.version is 'Backend version of the bytes; a new one on every overwrite.';

create table storage.signed_upload_uses (
  token_id uuid primary key,
  used_at timestamptz not null default now(),
  expires_at timestamptz not null
);
comment on table storage.signed_upload_uses is 'Signed upload URL tokens already spent: each token uploads once. Rows past expires_at may be deleted.';

create function storage.set_updated_at() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function storage.set_updated_at() is 'Trigger: stamps updated_at on every update.';
create trigger buckets_set_updated_at before update on storage.buckets
  for each row execute function storage.set_updated_at();
create trigger objects_set_updated_at before update on storage.objects
  for each row execute function storage.set_updated_at();

create function storage.foldername(name text) returns text[]
  language sql immutable
  set search_path = ''
as $$
  select (string_to_array(name, '/'))[1:array_length(string_to_array(name, '/'), 1) - 1]
$$;
comment on function storage.foldername(text) is 'The folders of an object name: foldername(''a/b/c.png'') = {a,b}.';

create function storage.filename(name text) returns text
  language sql immutable
  set search_path = ''
as $$
  select (string_to_array(name, '/'))[array_length(string_to_array(name, '/'), 1)]
$$;
comment on function storage.filename(text) is 'The last path segment of an object name: filename(''a/b/c.png'') = c.png.';

create function storage.extension(name text) returns text
  language sql immutable
  set search_path = ''
as $$
  select case
    when storage.filename(name) like '%.%' then reverse(split_part(reverse(storage.filename(name)), '.', 1))
    else ''
  end
$$;
comment on function storage.extension(text) is 'The extension of an object''s file name without the dot: extension(''a/b/c.png'') = png; '''' when none.';

grant select, insert, update, delete on storage.buckets, storage.objects to anon, authenticated, service_role;
grant select, insert, delete on storage.signed_upload_uses to service_role;
grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text) to anon, authenticated, service_role;
revoke execute on function storage.set_updated_at() from public;

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
alter table storage.signed_upload_uses enable row level security;

-- Buckets: as upstream, no policy for anon or authenticated; buckets are
-- managed with the service_role key. The service reads a bucket's limits
-- itself for uploads and public downloads.

-- images: public listing photos under <user id>/… (the app uploads
-- `${userId}/${uuid}.jpg`). Anyone reads; a signed-in user uploads into their
-- own folder (owner_id = their id, set by the service) and changes only
-- their own objects, never into another user's folder.
create policy objects_select_images on storage.objects for select to anon, authenticated
  using (bucket_id = 'images');
create policy objects_insert_images_owner on storage.objects for insert to authenticated
  with check (bucket_id = 'images' and owner_id = (select auth.uid())::text
    and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy objects_update_images_owner on storage.objects for update to authenticated
  using (bucket_id = 'images' and owner_id = (select auth.uid())::text)
  with check (bucket_id = 'images' and owner_id = (select auth.uid())::text
    and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy objects_delete_images_owner on storage.objects for delete to authenticated
  using (bucket_id = 'images' and owner_id = (select auth.uid())::text);

-- avatars: one object per user, named by the user id. Anyone reads; only
-- the user writes their own (upload with x-upsert needs insert, select and
-- update).
create policy objects_select_avatars on storage.objects for select to anon, authenticated
  using (bucket_id = 'avatars');
create policy objects_insert_avatars_owner on storage.objects for insert to authenticated
  with check (bucket_id = 'avatars' and name = (select auth.uid())::text);
create policy objects_update_avatars_owner on storage.objects for update to authenticated
  using (bucket_id = 'avatars' and name = (select auth.uid())::text)
  with check (bucket_id = 'avatars' and name = (select auth.uid())::text);
create policy objects_delete_avatars_owner on storage.objects for delete to authenticated
  using (bucket_id = 'avatars' and name = (select auth.uid())::text);

-- kyc: identity documents under <user id>/…. The owner writes and reads
-- their own folder; admins (public.is_admin(), user_roles) read all.
create policy objects_select_kyc_owner_or_admin on storage.objects for select to authenticated
  using (bucket_id = 'kyc' and ((storage.foldername(name))[1] = (select auth.uid())::text or (select public.is_admin())));
create policy objects_insert_kyc_owner on storage.objects for insert to authenticated
  with check (bucket_id = 'kyc' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy objects_update_kyc_owner on storage.objects for update to authenticated
  using (bucket_id = 'kyc' and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id = 'kyc' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy objects_delete_kyc_owner on storage.objects for delete to authenticated
  using (bucket_id = 'kyc' and (storage.foldername(name))[1] = (select auth.uid())::text);

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types) values
  ('images', 'images', true, 10485760, array['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
  ('avatars', 'avatars', true, 2097152, array['image/jpeg', 'image/png', 'image/gif']),
  ('kyc', 'kyc', false, 10485760, array['image/jpeg', 'image/png', 'application/pdf']);

alter table storage.buckets owner to supabase_storage_admin;
alter table storage.objects owner to supabase_storage_admin;
alter table storage.signed_upload_uses owner to supabase_storage_admin;
alter function storage.set_updated_at() owner to supabase_storage_admin;
alter function storage.foldername(text) owner to supabase_storage_admin;
alter function storage.filename(text) owner to supabase_storage_admin;
alter function storage.extension(text) owner to supabase_storage_admin;
