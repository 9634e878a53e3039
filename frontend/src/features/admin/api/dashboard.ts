import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'

import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'

/** get_dashboard_stats (0012), with the spec's field names. */
export type DashboardStats = {
  totalUsers: number
  totalProperties: number
  totalProducts: number
  totalDroneServices: number
  totalMovingServices: number
  activeProperties: number
  activeProducts: number
  pendingProperties: number
  pendingProducts: number
  pendingKYC: number
}

export async function getDashboardStats(): Promise<DashboardStats> {
  const { data } = await supabase.rpc('get_dashboard_stats').throwOnError()
  return data as unknown as DashboardStats
}

export function useDashboardStats() {
  return useQuery({ queryKey: adminKeys.stats(), queryFn: getDashboardStats })
}

/** The tables the dashboard counts (spec §7 Realtime). */
export const DASHBOARD_TABLES = ['properties', 'products', 'profiles', 'service_providers', 'kyc_verifications'] as const

/** Changes arriving within this window cause one re-fetch. */
export const LIVE_DEBOUNCE_MS = 250

export type LiveStatus = 'connecting' | 'live' | 'offline'

let channelSerial = 0

/**
 * Keeps queries live over Realtime postgres_changes: any change on `tables`
 * invalidates `queryKeys` (debounced); returns the socket state for the live
 * indicator. supabase-js rejoins by itself after a drop; on the rejoin the
 * data is re-read, since changes made meanwhile were missed.
 */
export function useAdminLive(name: string, tables: readonly string[], queryKeys: readonly (readonly unknown[])[]): LiveStatus {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<LiveStatus>('connecting')
  const tableList = tables.join(',')
  const keyList = JSON.stringify(queryKeys)

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let joined = false
    const keys = JSON.parse(keyList) as unknown[][]
    const refresh = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey })
      }, LIVE_DEBOUNCE_MS)
    }
    channelSerial += 1
    let channel = supabase.channel(`admin:${name}:${channelSerial}`)
    for (const table of tableList.split(',')) {
      channel = channel.on('postgres_changes', { event: '*', schema: 'public', table }, refresh)
    }
    channel.subscribe((state) => {
      if (state === 'SUBSCRIBED') {
        setStatus('live')
        if (joined) refresh()
        joined = true
      } else if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT' || state === 'CLOSED') {
        setStatus('offline')
      }
    })
    const offline = () => setStatus('offline')
    window.addEventListener('offline', offline)
    return () => {
      clearTimeout(timer)
      window.removeEventListener('offline', offline)
      void supabase.removeChannel(channel)
    }
  }, [queryClient, name, tableList, keyList])

  return status
}
