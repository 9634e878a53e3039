import { queryOptions, useQuery } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import { walletKeys } from './keys'

/** The three in-app currencies, in display order. */
export const currencies = ['nestcoins', 'crystals', 'keys'] as const
export type Currency = (typeof currencies)[number]

export type Balances = Record<Currency, number>

/**
 * The signed-in user's balance in each currency, from their own wallets
 * rows (a currency without a row counts as 0).
 */
export async function getBalances(userId: string, signal?: AbortSignal): Promise<Balances> {
  let request = supabase.from('wallets').select('currency, balance').eq('user_id', userId).eq('kind', 'user')
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  const balances: Balances = { nestcoins: 0, crystals: 0, keys: 0 }
  for (const row of data ?? []) {
    if ((currencies as readonly string[]).includes(row.currency)) balances[row.currency as Currency] = row.balance
  }
  return balances
}

export const getBalancesQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: walletKeys.balances(userId),
    queryFn: ({ signal }) => getBalances(userId, signal),
    staleTime: 0,
  })

export function useBalances(userId: string | undefined) {
  return useQuery({ ...getBalancesQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}
