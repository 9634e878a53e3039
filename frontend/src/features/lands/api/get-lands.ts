import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { containsAny, pageRange, type Page } from '@/lib/pagination'
import { supabase } from '@/lib/supabase'

import { landKeys, type LandFilters } from './keys'

export type Land = Tables<'lands'>

/**
 * One page of active lands: search over title, location and description
 * (case-insensitive), type and purpose filters, sorted newest first or by
 * price.
 */
export async function getLands(filters: LandFilters, signal?: AbortSignal): Promise<Page<Land>> {
  let request = supabase.from('lands').select('*', { count: 'exact' }).eq('is_active', true)
  if (filters.type) request = request.eq('type', filters.type)
  if (filters.purpose) request = request.eq('purpose', filters.purpose)
  if (filters.search?.trim()) {
    request = request.or(containsAny(['title', 'location', 'description'], filters.search))
  }
  request =
    filters.sort === 'newest'
      ? request.order('createdAt', { ascending: false })
      : request.order('price', { ascending: filters.sort === 'price-asc' }).order('createdAt', { ascending: false })
  const [from, to] = pageRange(filters.page)
  request = request.range(from, to)
  if (signal) request = request.abortSignal(signal)
  const { data, count } = await request.throwOnError()
  return { items: data ?? [], count: count ?? 0 }
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
