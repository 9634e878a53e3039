import { queryOptions, useQuery } from '@tanstack/react-query'

import { staticFeeRates, type FeeCategory, type FeeRate } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

import { walletKeys } from './keys'

/** The per-day listing fees from listing_fee_rates, in table order. */
export async function getFeeRates(signal?: AbortSignal): Promise<FeeRate[]> {
  let request = supabase
    .from('listing_fee_rates')
    .select('category, label, match_value, min_price, max_price, per_day')
    .order('category')
    .order('sort_order')
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return (data ?? []).map((row) => ({ ...row, category: row.category as FeeCategory }))
}

export const getFeeRatesQueryOptions = () =>
  queryOptions({
    queryKey: walletKeys.feeRates(),
    queryFn: ({ signal }) => getFeeRates(signal),
    staleTime: 60 * 60_000,
  })

/**
 * The fee table: the server's rates once loaded, the static spec table
 * before that and when the call fails (or returns nothing).
 */
export function useFeeRates() {
  const query = useQuery(getFeeRatesQueryOptions())
  const rates = query.data?.length ? query.data : staticFeeRates
  return { ...query, rates, isFallback: !query.data?.length }
}
