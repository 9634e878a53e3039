-- Identity verification (KYC) submissions and user suspensions, with the
-- admin functions the app calls by name (marketplace-spec §3, §5, §7, §8):
-- get_user_email, get_user_suspension_info, suspend_user,
-- process_kyc_verification (and unsuspend_user, ours).

-- ---------------------------------------------------------------------------
-- KYC: one submission per user. The owner submits and may resubmit while it
-- is pending or after a rejection; only an admin decides.
create table public.kyc_verifications (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  id_type text not null constraint kyc_verifications_id_type_check check (char_length(btrim(id_type)) > 0),
  id_number text not null constraint kyc_verifications_id_number_check check (char_length(btrim(id_number)) > 0),
  physical_address text,
  photo_url text,
  id_document_front_url text,
  id_document_back_url text,
  verification_status text not null default 'pending'
    constraint kyc_verifications_verification_status_check check (verification_status in ('pending', 'approved', 'rejected')),
  admin_notes text,
  reviewed_by uuid references auth.users (id) on delete set null,
  reviewed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint kyc_verifications_user_id_key unique (user_id)
);
create index kyc_verifications_created_at_idx on public.kyc_verifications (created_at desc);
create index kyc_verifications_pending_idx on public.kyc_verifications (created_at desc) where verification_status = 'pending';
create index kyc_verifications_reviewed_by_idx on public.kyc_verifications (reviewed_by);
comment on table public.kyc_verifications is 'Identity (KYC) submissions (spec §3): one per user, status pending -> approved | rejected, decided by process_kyc_verification.';
comment on column public.kyc_verifications.verification_status is 'pending, approved or rejected. Never writable by the submitter; a resubmission after rejection returns it to pending.';

create trigger kyc_verifications_set_updated_at before update on public.kyc_verifications
  for each row execute function app_private.set_updated_at();

-- A submitter who edits the documents resubmits: the decision is cleared.
create function app_private.kyc_resubmit() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  if current_user in ('anon', 'authenticated') and not public.is_admin() then
    new.verification_status := 'pending';
    new.admin_notes := null;
    new.reviewed_by := null;
    new.reviewed_at := null;
  end if;
  return new;
end
$$;
comment on function app_private.kyc_resubmit() is 'Trigger: an edit by the submitter puts the submission back to pending and clears the review.';
create trigger kyc_verifications_resubmit before update on public.kyc_verifications
  for each row execute function app_private.kyc_resubmit();

alter table public.kyc_verifications enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.kyc_verifications from anon;
revoke insert, update, truncate, references, trigger on public.kyc_verifications from authenticated;
grant insert (user_id, id_type, id_number, physical_address, photo_url, id_document_front_url, id_document_back_url)
  on public.kyc_verifications to authenticated;
grant update (id_type, id_number, physical_address, photo_url, id_document_front_url, id_document_back_url)
  on public.kyc_verifications to authenticated;

create policy kyc_verifications_select_owner on public.kyc_verifications for select to authenticated
  using (user_id = (select auth.uid()));
create policy kyc_verifications_select_admin on public.kyc_verifications for select to authenticated
  using ((select public.is_admin()));
create policy kyc_verifications_insert_owner on public.kyc_verifications for insert to authenticated
  with check (user_id = (select auth.uid()));
create policy kyc_verifications_update_owner on public.kyc_verifications for update to authenticated
  using (user_id = (select auth.uid()) and verification_status in ('pending', 'rejected'))
  with check (user_id = (select auth.uid()));
create policy kyc_verifications_delete_admin on public.kyc_verifications for delete to authenticated
  using ((select public.is_admin()));

-- ---------------------------------------------------------------------------
-- Suspensions. A suspension is active while not lifted and not ended; the
-- user's auth.users.banned_until mirrors the active one so authsvc refuses
-- sign-in and refresh.
create table public.user_suspensions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  suspension_type text not null
    constraint user_suspensions_suspension_type_check check (suspension_type in ('10_days', '30_days', '60_days', 'permanent')),
  reason text,
  suspended_by uuid references auth.users (id) on delete set null,
  suspended_at timestamptz not null default now(),
  suspended_until timestamptz,
  lifted_at timestamptz,
  lifted_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  constraint user_suspensions_until_matches_type check ((suspension_type = 'permanent') = (suspended_until is null)),
  constraint user_suspensions_until_after_start check (suspended_until is null or suspended_until > suspended_at)
);
create index user_suspensions_user_idx on public.user_suspensions (user_id, suspended_at desc);
create index user_suspensions_suspended_by_idx on public.user_suspensions (suspended_by);
create index user_suspensions_lifted_by_idx on public.user_suspensions (lifted_by);
comment on table public.user_suspensions is 'Suspensions of users (spec §3): 10_days, 30_days, 60_days or permanent (suspended_until NULL), with an optional reason; written only by suspend_user / unsuspend_user.';

alter table public.user_suspensions enable row level security;
revoke insert, update, delete, truncate, references, trigger on public.user_suspensions from anon, authenticated;

create policy user_suspensions_select_owner on public.user_suspensions for select to authenticated
  using (user_id = (select auth.uid()));
create policy user_suspensions_select_admin on public.user_suspensions for select to authenticated
  using ((select public.is_admin()));

-- ---------------------------------------------------------------------------
-- Admin functions.
create function public.get_user_email(p_user_id uuid) returns text
  language plpgsql stable
  security definer
  set search_path = ''
as $$
begin
  if p_user_id is distinct from auth.uid() then
    perform app_private.require_admin();
  end if;
  return (select u.email::text from auth.users u where u.id = p_user_id);
end
$$;
comment on function public.get_user_email(uuid) is 'The e-mail of a user (admin user list, spec §7). Admins (or the user themself) only; NULL for an unknown id.';
revoke execute on function public.get_user_email(uuid) from public, anon;
grant execute on function public.get_user_email(uuid) to authenticated, service_role;

create function public.get_user_suspension_info(p_user_id uuid) returns setof public.user_suspensions
  language plpgsql stable
  security definer
  set search_path = ''
as $$
begin
  if p_user_id is distinct from auth.uid() then
    perform app_private.require_admin();
  end if;
  return query
    select s.* from public.user_suspensions s
     where s.user_id = p_user_id
       and s.lifted_at is null
       and (s.suspended_until is null or s.suspended_until > now())
     order by s.suspended_at desc;
end
$$;
comment on function public.get_user_suspension_info(uuid) is 'The active suspension(s) of a user, newest first: an empty array when not suspended, else the first item is the active suspension (suspension_type, reason, suspended_until). Admins or the user themself.';
revoke execute on function public.get_user_suspension_info(uuid) from public, anon;
grant execute on function public.get_user_suspension_info(uuid) to authenticated, service_role;

create function public.suspend_user(p_user_id uuid, p_admin_id uuid, p_suspension_type text, p_reason text default null)
  returns public.user_suspensions
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := app_private.require_admin();
  v_until timestamptz;
  v_row public.user_suspensions;
begin
  -- The acting admin is the caller; p_admin_id is only trusted from service_role.
  if v_admin is null then
    v_admin := p_admin_id;
  end if;
  if p_suspension_type is null or btrim(p_suspension_type) = '' then
    raise exception 'Suspension duration is required' using errcode = 'P0001';
  end if;
  v_until := case p_suspension_type
    when '10_days' then now() + interval '10 days'
    when '30_days' then now() + interval '30 days'
    when '60_days' then now() + interval '60 days'
    when 'permanent' then null
    else 'epoch'::timestamptz end;
  if v_until = 'epoch'::timestamptz then
    raise exception 'Suspension type must be one of 10_days, 30_days, 60_days, permanent' using errcode = 'P0001';
  end if;
  if p_user_id is null or not exists (select 1 from auth.users u where u.id = p_user_id) then
    raise exception 'User not found' using errcode = 'P0001';
  end if;
  if p_user_id = v_admin then
    raise exception 'You cannot suspend your own account' using errcode = 'P0001';
  end if;
  if exists (select 1 from public.user_roles r where r.user_id = p_user_id and r.role = 'admin') then
    raise exception 'Administrators cannot be suspended' using errcode = 'P0001';
  end if;
  -- Serialize suspensions of one user so two admins cannot both succeed.
  perform pg_advisory_xact_lock(hashtextextended('kejanest.suspend:' || p_user_id::text, 0));
  if exists (select 1 from public.user_suspensions s
              where s.user_id = p_user_id and s.lifted_at is null
                and (s.suspended_until is null or s.suspended_until > now())) then
    raise exception 'User is already suspended' using errcode = 'P0001',
      hint = 'Lift the current suspension first.';
  end if;
  insert into public.user_suspensions (user_id, suspension_type, reason, suspended_by, suspended_until)
  values (p_user_id, p_suspension_type, nullif(btrim(p_reason), ''), v_admin, v_until)
  returning * into v_row;
  -- authsvc refuses banned users. Permanent = 100 years (GoTrue's own
  -- convention), which every client library can represent, unlike 'infinity'.
  update auth.users
     set banned_until = coalesce(v_until, now() + interval '100 years'), updated_at = now()
   where id = p_user_id;
  return v_row;
end
$$;
comment on function public.suspend_user(uuid, uuid, text, text) is 'Suspends a user for 10/30/60 days or permanently (admins only, whatever p_admin_id says); sets auth.users.banned_until; refuses self, admins and an already-suspended user.';
revoke execute on function public.suspend_user(uuid, uuid, text, text) from public, anon;
grant execute on function public.suspend_user(uuid, uuid, text, text) to authenticated, service_role;

create function public.unsuspend_user(p_user_id uuid, p_admin_id uuid default null)
  returns public.user_suspensions
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := coalesce(app_private.require_admin(), p_admin_id);
  v_row public.user_suspensions;
begin
  perform pg_advisory_xact_lock(hashtextextended('kejanest.suspend:' || coalesce(p_user_id::text, ''), 0));
  update public.user_suspensions s
     set lifted_at = now(), lifted_by = v_admin
   where s.user_id = p_user_id and s.lifted_at is null
     and (s.suspended_until is null or s.suspended_until > now())
  returning * into v_row;
  if not found then
    raise exception 'User is not suspended' using errcode = 'P0001';
  end if;
  update auth.users set banned_until = null, updated_at = now() where id = p_user_id;
  return v_row;
end
$$;
comment on function public.unsuspend_user(uuid, uuid) is 'Lifts the active suspension of a user and clears auth.users.banned_until (admins only).';
revoke execute on function public.unsuspend_user(uuid, uuid) from public, anon;
grant execute on function public.unsuspend_user(uuid, uuid) to authenticated, service_role;

create function public.process_kyc_verification(p_kyc_id uuid, p_admin_id uuid, p_action text, p_notes text default null)
  returns public.kyc_verifications
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  v_admin uuid := coalesce(app_private.require_admin(), p_admin_id);
  v_row public.kyc_verifications;
begin
  if p_action is null or p_action not in ('approved', 'rejected') then
    raise exception 'Action must be approved or rejected' using errcode = 'P0001';
  end if;
  select * into v_row from public.kyc_verifications k where k.id = p_kyc_id for update;
  if not found then
    raise exception 'KYC submission not found' using errcode = 'P0001';
  end if;
  if v_row.verification_status <> 'pending' then
    raise exception 'KYC submission has already been %', v_row.verification_status using errcode = 'P0001',
      hint = 'Only pending submissions can be processed.';
  end if;
  update public.kyc_verifications k
     set verification_status = p_action, admin_notes = nullif(btrim(p_notes), ''),
         reviewed_by = v_admin, reviewed_at = now()
   where k.id = p_kyc_id
  returning * into v_row;
  return v_row;
end
$$;
comment on function public.process_kyc_verification(uuid, uuid, text, text) is 'Approves or rejects a pending KYC submission (p_action ''approved''|''rejected'', optional notes); admins only, whatever p_admin_id says.';
revoke execute on function public.process_kyc_verification(uuid, uuid, text, text) from public, anon;
grant execute on function public.process_kyc_verification(uuid, uuid, text, text) to authenticated, service_role;
