import { useMutation, useQueryClient } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import type { Notification } from './get-notifications'
import { notificationKeys } from './keys'

/** Marks one notification of the caller read (RLS: their own; only read_at may change). */
export async function markNotificationRead(id: number): Promise<void> {
  await supabase.from('notifications').update({ read_at: new Date().toISOString() }).eq('id', id).is('read_at', null).throwOnError()
}

/** Marks every unread notification of the caller read. */
export async function markAllNotificationsRead(): Promise<void> {
  await supabase.from('notifications').update({ read_at: new Date().toISOString() }).is('read_at', null).throwOnError()
}

function markedRead(rows: Notification[] | undefined, id?: number): Notification[] | undefined {
  const now = new Date().toISOString()
  return rows?.map((row) => (row.read_at === null && (id === undefined || row.id === id) ? { ...row, read_at: now } : row))
}

/** Marks one (an id) or all (undefined) read; the bell updates at once, then re-reads. */
export function useMarkNotificationsRead(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id?: number) => (id === undefined ? markAllNotificationsRead() : markNotificationRead(id)),
    onMutate: (id) => {
      queryClient.setQueryData<Notification[]>(notificationKeys.latest(userId), (rows) => markedRead(rows, id))
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  })
}
