import { keepPreviousData, useQuery } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'

/** admin_analytics (0028). */
export type Analytics = {
  days: number
  since: string
  signups: { day: string; count: number }[]
  listings: { kind: 'property' | 'land' | 'product' | 'service'; total: number; active: number; pending: number; new: number }[]
  fees: { day: string; amount: number }[]
  feesTotal: number
  trades: { currency: 'nestcoins' | 'crystals' | 'keys'; trades: number; completed: number; volume: number; volumeKes: number }[]
}

export const analyticsPeriods = [30, 90] as const
export type AnalyticsPeriod = (typeof analyticsPeriods)[number]

export async function getAnalytics(days: AnalyticsPeriod): Promise<Analytics> {
  const { data } = await supabase.rpc('admin_analytics', { p_days: days }).throwOnError()
  return data as unknown as Analytics
}

export function useAnalytics(days: AnalyticsPeriod) {
  return useQuery({ queryKey: adminKeys.analytics(days), queryFn: () => getAnalytics(days), placeholderData: keepPreviousData })
}
