import { queryOptions, useQueries } from '@tanstack/react-query'

import { productSelect, propertySelect, serviceProviderSelect } from '@/lib/listing-columns'
import type { ListingKind } from '@/lib/listing-fees'
import {
  landSummary,
  landSummarySelect,
  listingKinds,
  productSummary,
  propertySummary,
  serviceSummary,
  type ListingSummary,
} from '@/lib/listing-summary'
import { settledCount } from '@/lib/pagination'
import { prefixQuery, searchOptions } from '@/lib/search-query'
import { supabase } from '@/lib/supabase'

import { searchKeys } from './keys'

/** Results shown per kind; 'See all' leads to the kind's own screen. */
export const RESULTS_PER_KIND = 6

/** The first results of one kind and how many there are in all. */
export type KindResults = { items: ListingSummary[]; count: number }

/**
 * The results of one kind from the first page and its `count: 'estimated'`
 * total (PostgREST counts exactly up to max-rows and estimates above it, so
 * a common word does not count a 100k-row table on every search): a short
 * page settles the total, a full one proves at least its rows exist.
 */
function kindResults(items: ListingSummary[], count: number | null): KindResults {
  return { items, count: settledCount(count, 0, items.length, RESULTS_PER_KIND) }
}

/**
 * The newest active listings of `kind` whose full-text vector holds every
 * word of `q` (as prefixes: the same filter as the kind's own screen, see
 * lib/search-query.ts and sql/migrations/0027_listing_search.sql), at most
 * RESULTS_PER_KIND, with the estimated count (see kindResults). Only
 * active listings: RLS hides inactive ones from visitors, and
 * is_active=true keeps a signed-in owner's own drafts out too. A query
 * without a word finds nothing.
 */
export async function searchKind(kind: ListingKind, q: string, signal?: AbortSignal): Promise<KindResults> {
  const words = prefixQuery(q)
  if (!words) return { items: [], count: 0 }
  switch (kind) {
    case 'property': {
      let request = supabase
        .from('properties')
        .select(propertySelect, { count: 'estimated' })
        .eq('is_active', true)
        .textSearch('search', words, searchOptions)
        .order('created_at', { ascending: false })
        .limit(RESULTS_PER_KIND)
      if (signal) request = request.abortSignal(signal)
      const { data, count } = await request.throwOnError()
      return kindResults((data ?? []).map(propertySummary), count)
    }
    case 'product': {
      let request = supabase
        .from('products')
        .select(productSelect, { count: 'estimated' })
        .eq('is_active', true)
        .textSearch('search', words, searchOptions)
        .order('created_at', { ascending: false })
        .limit(RESULTS_PER_KIND)
      if (signal) request = request.abortSignal(signal)
      const { data, count } = await request.throwOnError()
      return kindResults((data ?? []).map(productSummary), count)
    }
    case 'land': {
      let request = supabase
        .from('lands')
        .select(landSummarySelect, { count: 'estimated' })
        .eq('is_active', true)
        .textSearch('search', words, searchOptions)
        .order('createdAt', { ascending: false })
        .limit(RESULTS_PER_KIND)
      if (signal) request = request.abortSignal(signal)
      const { data, count } = await request.throwOnError()
      return kindResults((data ?? []).map(landSummary), count)
    }
    case 'service': {
      let request = supabase
        .from('service_providers')
        .select(serviceProviderSelect, { count: 'estimated' })
        .eq('is_active', true)
        .textSearch('search', words, searchOptions)
        .order('created_at', { ascending: false })
        .limit(RESULTS_PER_KIND)
      if (signal) request = request.abortSignal(signal)
      const { data, count } = await request.throwOnError()
      return kindResults((data ?? []).map(serviceSummary), count)
    }
  }
}

export const searchKindQueryOptions = (kind: ListingKind, q: string) =>
  queryOptions({ queryKey: searchKeys.kind(kind, q), queryFn: ({ signal }) => searchKind(kind, q, signal) })

/** One group of /search: a kind's query state and, once loaded, its results. */
export type SearchGroup = {
  kind: ListingKind
  status: 'pending' | 'error' | 'success'
  results: KindResults | undefined
  retry(): void
}

/** Searches the four kinds in parallel (four requests, each its own group); idle while `q` is empty. */
export function useListingSearch(q: string): SearchGroup[] {
  return useQueries({
    queries: listingKinds.map((kind) => ({ ...searchKindQueryOptions(kind, q), enabled: q !== '' })),
    combine: (results) =>
      results.map((result, index) => ({
        kind: listingKinds[index],
        status: result.status,
        results: result.data,
        retry: () => void result.refetch(),
      })),
  })
}

/**
 * What /search shows as a whole: 'loading' until some kind has results (or
 * all are in), 'error' when no kind has results and some failed (so "no
 * results" is never claimed on a failure), 'empty' when every kind answered
 * with none, else 'results' (each group then shows its own state).
 */
export function searchOverview(groups: readonly Pick<SearchGroup, 'status' | 'results'>[]): 'loading' | 'error' | 'empty' | 'results' {
  if (groups.some((group) => group.status === 'success' && (group.results?.count ?? 0) > 0)) return 'results'
  if (groups.some((group) => group.status === 'pending')) return 'loading'
  if (groups.some((group) => group.status === 'error')) return 'error'
  return 'empty'
}
