import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { propertySelect } from '@/lib/listing-columns'
import { containsPattern, pageRange, settledCount, type Page } from '@/lib/pagination'
import { prefixQuery, searchOptions } from '@/lib/search-query'
import { supabase } from '@/lib/supabase'

import { propertyKeys, type PropertyFilters } from './keys'

/** A property as anyone may read it: every column but the owner's `contact` (see lib/listing-columns.ts). */
export type Property = Omit<Tables<'properties'>, 'contact'>

/** The property types behind the landing page's 'Commercial' tile. */
export const commercialTypes = ['Office Space', 'Retail Space', 'Warehouse'] as const

/**
 * One page of active properties, newest first: exact type and purpose,
 * location contains, and a free-text query over title, location and
 * description.
 */
export async function getProperties(filters: PropertyFilters, signal?: AbortSignal): Promise<Page<Property>> {
  let request = supabase.from('properties').select(propertySelect, { count: 'estimated' }).eq('is_active', true)
  if (filters.type) request = request.eq('type', filters.type)
  if (!filters.type && filters.category === 'Commercial') request = request.in('type', [...commercialTypes])
  if (filters.purpose) request = request.eq('purpose', filters.purpose)
  if (filters.location) request = request.ilike('location', containsPattern(filters.location))
  const words = prefixQuery(filters.query ?? '')
  if (words) request = request.textSearch('search', words, searchOptions)
  const [from, to] = pageRange(filters.page)
  request = request.order('created_at', { ascending: false }).range(from, to)
  if (signal) request = request.abortSignal(signal)
  const { data, count } = await request.throwOnError()
  const items = data ?? []
  return { items, count: settledCount(count, from, items.length) }
}

export const getPropertiesQueryOptions = (filters: PropertyFilters) =>
  queryOptions({
    queryKey: propertyKeys.list(filters),
    queryFn: ({ signal }) => getProperties(filters, signal),
    placeholderData: keepPreviousData,
  })

export function useProperties(filters: PropertyFilters) {
  return useQuery(getPropertiesQueryOptions(filters))
}
