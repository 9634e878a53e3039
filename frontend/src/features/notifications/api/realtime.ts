import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'

import { supabase } from '@/lib/supabase'

import { notificationKeys } from './keys'

let channelSerial = 0

/**
 * Keeps the bell live while mounted: every change of the caller's
 * notifications (RLS limits Realtime to their own rows) re-reads the list
 * and the unread count.
 */
export function useNotificationsRealtime(userId: string | undefined, enabled = true) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!userId || !enabled) return
    const refresh = () => void queryClient.invalidateQueries({ queryKey: notificationKeys.all })
    channelSerial += 1
    const channel = supabase
      .channel(`notifications:${userId}:${channelSerial}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'notifications', filter: `user_id=eq.${userId}` }, refresh)
      .subscribe((status) => {
        // Joined (or joined again after a drop): re-read once, so nothing
        // that happened between the first read and the join is missed.
        if (status === 'SUBSCRIBED') refresh()
      })
    return () => {
      void supabase.removeChannel(channel)
    }
  }, [queryClient, userId, enabled])
}
