import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import type { Json, Tables } from '@/lib/database.types'
import { serviceProviderSelect } from '@/lib/listing-columns'
import { pageRange, settledCount, type Page } from '@/lib/pagination'
import { supabase } from '@/lib/supabase'

import { serviceKeys, type ServiceFilters } from './keys'

/** A service provider as anyone may read it: every column but the `phone` (see lib/listing-columns.ts). */
export type ServiceProvider = Omit<Tables<'service_providers'>, 'phone'>
export type PricingEntry = { title: string; price: number; duration?: string }

/** How many providers a search scans at most (the search runs on the client, spec §7). */
export const SERVICE_SEARCH_LIMIT = 500

/** Case-insensitive match of a search text against a provider's name, location and services (spec §2). */
export function matchesServiceSearch(provider: Pick<ServiceProvider, 'name' | 'location' | 'services'>, search: string): boolean {
  const needle = search.trim().toLocaleLowerCase()
  if (!needle) return true
  return [provider.name, provider.location ?? '', ...(provider.services ?? [])].some((text) =>
    text.toLocaleLowerCase().includes(needle),
  )
}

/**
 * One page of active service providers, newest first, on a category tab
 * (Drone | Moving). Without a search the server pages the rows, with an
 * estimated total as the other listing screens ask for (PostgREST counts
 * exactly up to max-rows and estimates above it; a short page settles
 * it); a search over name, location and the services list (which
 * PostgREST cannot match case-insensitively inside an array) filters the
 * active providers on the client, as the spec describes, and pages the
 * matches.
 */
export async function getServices(filters: ServiceFilters, signal?: AbortSignal): Promise<Page<ServiceProvider>> {
  const search = filters.search?.trim()
  let request = supabase.from('service_providers').select(serviceProviderSelect, { count: search ? undefined : 'estimated' }).eq('is_active', true)
  if (filters.category) request = request.eq('category', filters.category)
  request = request.order('created_at', { ascending: false })
  const [from, to] = pageRange(filters.page)
  request = search ? request.limit(SERVICE_SEARCH_LIMIT) : request.range(from, to)
  if (signal) request = request.abortSignal(signal)
  const { data, count } = await request.throwOnError()
  if (!search) {
    const items = data ?? []
    return { items, count: settledCount(count, from, items.length) }
  }
  const matches = (data ?? []).filter((provider) => matchesServiceSearch(provider, search))
  return { items: matches.slice(from, to + 1), count: matches.length }
}

export const getServicesQueryOptions = (filters: ServiceFilters) =>
  queryOptions({
    queryKey: serviceKeys.list(filters),
    queryFn: ({ signal }) => getServices(filters, signal),
    placeholderData: keepPreviousData,
  })

export function useServices(filters: ServiceFilters) {
  return useQuery(getServicesQueryOptions(filters))
}

/**
 * A list column that may hold an array or JSON text of one (spec §3: the
 * providers' pricing and reviews); anything else reads as empty.
 */
export function jsonList(column: Json | null | undefined): unknown[] {
  let value: unknown = column
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return []
    }
  }
  return Array.isArray(value) ? value : []
}

/** The pricing column as a list of entries (see {@link jsonList}). */
export function parsePricing(pricing: Json | null | undefined): PricingEntry[] {
  return jsonList(pricing).flatMap((entry) => {
    if (!entry || typeof entry !== 'object') return []
    const { title, price, duration } = entry as Record<string, unknown>
    const amount = typeof price === 'number' ? price : Number(price)
    if (typeof title !== 'string' || !Number.isFinite(amount)) return []
    return [{ title, price: amount, duration: typeof duration === 'string' ? duration : undefined }]
  })
}
