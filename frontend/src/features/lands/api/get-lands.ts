import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { landSelect } from '@/lib/listing-columns'
import { pageRange, settledCount, type Page } from '@/lib/pagination'
import { prefixQuery, searchOptions } from '@/lib/search-query'
import { supabase } from '@/lib/supabase'

import { landKeys, type LandFilters } from './keys'

export type Land = Tables<'lands'>

/**
 * One page of active lands: the words of the search box over title,
 * location and description (full-text, as prefixes; lib/search-query.ts), type and purpose filters, sorted newest first or by
 * price.
 */
export async function getLands(filters: LandFilters, signal?: AbortSignal): Promise<Page<Land>> {
  let request = supabase.from('lands').select(landSelect, { count: 'estimated' }).eq('is_active', true)
  if (filters.type) request = request.eq('type', filters.type)
  if (filters.purpose) request = request.eq('purpose', filters.purpose)
  const words = prefixQuery(filters.search ?? '')
  if (words) request = request.textSearch('search', words, searchOptions)
  request =
    filters.sort === 'newest'
      ? request.order('createdAt', { ascending: false })
      : request.order('price', { ascending: filters.sort === 'price-asc' }).order('createdAt', { ascending: false })
  const [from, to] = pageRange(filters.page)
  request = request.range(from, to)
  if (signal) request = request.abortSignal(signal)
  const { data, count } = await request.throwOnError()
  const items = data ?? []
  return { items, count: settledCount(count, from, items.length) }
}

export const getLandsQueryOptions = (filters: LandFilters) =>
  queryOptions({
    queryKey: landKeys.list(filters),
    queryFn: ({ signal }) => getLands(filters, signal),
    placeholderData: keepPreviousData,
  })

export function useLands(filters: LandFilters) {
  return useQuery(getLandsQueryOptions(filters))
}
