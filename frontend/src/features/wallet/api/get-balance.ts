import { queryOptions, useQuery } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import { walletKeys } from './keys'

/** The signed-in user's Nestcoin balance (0 when no wallet row is visible). */
export async function getNestcoinBalance(userId: string, signal?: AbortSignal): Promise<number> {
  let request = supabase
    .from('wallets')
    .select('balance')
    .eq('user_id', userId)
    .eq('currency', 'nestcoins')
    .eq('kind', 'user')
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data?.balance ?? 0
}

export const getNestcoinBalanceQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: walletKeys.balance(userId),
    queryFn: ({ signal }) => getNestcoinBalance(userId, signal),
    staleTime: 0,
  })

/** The balance of `userId`; idle (no request) when signed out. */
export function useNestcoinBalance(userId: string | undefined) {
  return useQuery({ ...getNestcoinBalanceQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}
