import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { pageRange, type Page } from '@/lib/pagination'
import { supabase } from '@/lib/supabase'

import type { Currency } from './get-balances'
import { walletKeys } from './keys'

/** One ledger posting as seen from the user's wallet (public.wallet_history, 0024). */
export type WalletHistoryRow = Database['public']['Views']['wallet_history']['Row']

/** The kinds of ledger postings, in the order the Type filter lists them. */
export const ledgerKinds = [
  'purchase',
  'listing_fee',
  'listing_refund',
  'escrow_lock',
  'escrow_release',
  'escrow_refund',
  'issuance',
] as const satisfies readonly WalletHistoryRow['kind'][]
export type LedgerKind = (typeof ledgerKinds)[number]

export type WalletHistoryFilters = {
  currency?: Currency
  kind?: LedgerKind
  /** 1-based. */
  page: number
}

/**
 * One page of the user's ledger history, newest first, filtered by currency
 * and kind on the server, with the total count for the pagination. The
 * user_id filter matters for admins, whom RLS shows every wallet.
 */
export async function getWalletHistory(userId: string, filters: WalletHistoryFilters, signal?: AbortSignal): Promise<Page<WalletHistoryRow>> {
  let request = supabase
    .from('wallet_history')
    .select('id, user_id, currency, kind, amount, reference, memo, trade_id, created_at', { count: 'exact' })
    .eq('user_id', userId)
  if (filters.currency) request = request.eq('currency', filters.currency)
  if (filters.kind) request = request.eq('kind', filters.kind)
  const [from, to] = pageRange(filters.page)
  request = request.order('created_at', { ascending: false }).order('id', { ascending: false }).range(from, to)
  if (signal) request = request.abortSignal(signal)
  const { data, count } = await request.throwOnError()
  return { items: data ?? [], count: count ?? 0 }
}

export const getWalletHistoryQueryOptions = (userId: string, filters: WalletHistoryFilters) =>
  queryOptions({
    queryKey: walletKeys.history(userId, filters),
    queryFn: ({ signal }) => getWalletHistory(userId, filters, signal),
    placeholderData: keepPreviousData,
    staleTime: 0,
  })

export function useWalletHistory(userId: string | undefined, filters: WalletHistoryFilters) {
  return useQuery({ ...getWalletHistoryQueryOptions(userId ?? '', filters), enabled: Boolean(userId) })
}
