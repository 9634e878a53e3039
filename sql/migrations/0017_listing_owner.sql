-- What a listing's detail page shows about its owner (marketplace-spec
-- "Detail pages": the owner's contact revealed to signed-in users, a
-- KYC-verified badge). The owner's KYC submission is readable only by the
-- owner and admins (RLS on kyc_verifications) and profiles.phone_number only
-- by the profile's owner, so one definer function hands out exactly two
-- facts, and only for a listing the caller may see anyway:
--   kyc_verified  the owner has an approved KYC submission;
--   contact       the listing's own contact column (properties.contact,
--                 products.contact, service_providers.phone), else the
--                 owner's profiles.phone_number (lands have no contact
--                 column); NULL for visitors who are not signed in.

create function public.get_listing_owner(p_kind text, p_id uuid) returns jsonb
  language plpgsql stable
  security definer
  set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
  v_owner uuid;
  v_active boolean;
  v_contact text;
begin
  case p_kind
    when 'property' then
      select l.user_id, l.is_active, l.contact into v_owner, v_active, v_contact from public.properties l where l.id = p_id;
    when 'product' then
      select l.user_id, l.is_active, l.contact into v_owner, v_active, v_contact from public.products l where l.id = p_id;
    when 'land' then
      select l.userid, l.is_active, null::text into v_owner, v_active, v_contact from public.lands l where l.id = p_id;
    when 'service' then
      select l.userid, l.is_active, l.phone into v_owner, v_active, v_contact from public.service_providers l where l.id = p_id;
    else
      raise exception 'Unknown listing kind: %', coalesce(p_kind, 'NULL') using errcode = '22023',
        hint = 'Use property, product, land or service.';
  end case;
  -- The same visibility as the listing tables' select policies: active
  -- listings for everyone, the rest for their owner, admins and the service.
  if v_owner is null
     or not (v_active or v_owner is not distinct from v_uid or public.is_admin() or app_private.is_service()) then
    return null;
  end if;
  if v_uid is null then
    v_contact := null;
  else
    v_contact := coalesce(nullif(btrim(v_contact), ''),
                          (select p.phone_number from public.profiles p where p.id = v_owner));
  end if;
  return jsonb_build_object(
    'kyc_verified', exists (select 1 from public.kyc_verifications k
                             where k.user_id = v_owner and k.verification_status = 'approved'),
    'contact', v_contact);
end
$$;
comment on function public.get_listing_owner(text, uuid) is 'The owner facts a listing''s detail page shows: {kyc_verified: owner has an approved KYC submission, contact: the listing''s contact (properties/products.contact, service_providers.phone) or else the owner''s profiles.phone_number, NULL unless signed in}. p_kind property|product|land|service (else 22023). NULL when the listing does not exist or is not visible to the caller (inactive and neither owner nor admin).';
revoke execute on function public.get_listing_owner(text, uuid) from public;
grant execute on function public.get_listing_owner(text, uuid) to anon, authenticated, service_role;
