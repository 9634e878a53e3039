-- Private channel policies: authenticated users read "room-*" topics and
-- write them except "room-closed"; presence needs the user's own topic;
-- "claims-json" is read only while the legacy per-claim setting
-- request.jwt.claim.sub is unset (Supabase Realtime sets the role,
-- request.jwt.claims and realtime.topic alone); "header-room" is read and
-- written only with the request header x-room-key: k1.
create policy messages_select_rooms on realtime.messages for select to authenticated
  using ((realtime.topic() like 'room-%' and extension = 'broadcast')
      or (extension = 'presence' and realtime.topic() = 'user-' || (select auth.uid())::text));
create policy messages_insert_rooms on realtime.messages for insert to authenticated
  with check (realtime.topic() like 'room-%' and realtime.topic() <> 'room-closed');
create policy messages_select_claims_json on realtime.messages for select to authenticated
  using (realtime.topic() = 'claims-json' and coalesce(current_setting('request.jwt.claim.sub', true), '') = '');
create policy messages_select_header_room on realtime.messages for select to authenticated
  using (realtime.topic() = 'header-room'
     and current_setting('request.headers', true)::json ->> 'x-room-key' = 'k1');
create policy messages_insert_header_room on realtime.messages for insert to authenticated
  with check (realtime.topic() = 'header-room'
     and current_setting('request.headers', true)::json ->> 'x-room-key' = 'k1');
