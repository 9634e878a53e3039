-- Private channel policies: authenticated users read "room-*" topics and
-- write them except "room-closed"; presence needs the user's own topic.
create policy messages_select_rooms on realtime.messages for select to authenticated
  using ((realtime.topic() like 'room-%' and extension = 'broadcast')
      or (extension = 'presence' and realtime.topic() = 'user-' || (select auth.uid())::text));
create policy messages_insert_rooms on realtime.messages for insert to authenticated
  with check (realtime.topic() like 'room-%' and realtime.topic() <> 'room-closed');
