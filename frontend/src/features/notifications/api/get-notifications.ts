import { queryOptions, useQuery } from '@tanstack/react-query'

import { NOTIFICATIONS_SHOWN } from '@/config/inbox'
import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { notificationKeys } from './keys'

/** A notification of the caller: a kind and its data, which the app words. */
export type Notification = Tables<'notifications'>

/** The caller's newest notifications (RLS: their own), newest first. */
export async function getNotifications(signal?: AbortSignal): Promise<Notification[]> {
  let request = supabase
    .from('notifications')
    .select('id, user_id, kind, data, link, dedupe_key, read_at, created_at')
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(NOTIFICATIONS_SHOWN)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return Array.isArray(data) ? data : []
}

export const getNotificationsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: notificationKeys.latest(userId), queryFn: ({ signal }) => getNotifications(signal) })

export function useNotifications(userId: string | undefined) {
  return useQuery({ ...getNotificationsQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** How many of the caller's notifications are unread (all of them, not only the newest shown). */
export async function getUnreadNotificationCount(signal?: AbortSignal): Promise<number> {
  let request = supabase.from('notifications').select('id', { count: 'exact', head: true }).is('read_at', null)
  if (signal) request = request.abortSignal(signal)
  const { count } = await request.throwOnError()
  return count ?? 0
}

export function useUnreadNotificationCount(userId: string | undefined) {
  return useQuery({
    queryKey: notificationKeys.unread(userId ?? ''),
    queryFn: ({ signal }) => getUnreadNotificationCount(signal),
    enabled: Boolean(userId),
  })
}
