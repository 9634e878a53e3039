import { queryOptions, useQuery } from '@tanstack/react-query'

import type { P2pCurrency } from '@/config/p2p'
import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

/** The user's balance of one currency (0 without a wallet row). */
export async function getBalance(userId: string, currency: P2pCurrency, signal?: AbortSignal): Promise<number> {
  let request = supabase.from('wallets').select('balance').eq('user_id', userId).eq('currency', currency).eq('kind', 'user')
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data?.balance ?? 0
}

export const getBalanceQueryOptions = (userId: string, currency: P2pCurrency) =>
  queryOptions({
    queryKey: p2pKeys.balance(userId, currency),
    queryFn: ({ signal }) => getBalance(userId, currency, signal),
    staleTime: 0,
  })

export function useBalance(userId: string | undefined, currency: P2pCurrency) {
  return useQuery({ ...getBalanceQueryOptions(userId ?? '', currency), enabled: Boolean(userId) })
}
