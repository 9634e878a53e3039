import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { productSelect } from '@/lib/listing-columns'
import { containsPattern, pageRange, settledCount, type Page } from '@/lib/pagination'
import { prefixQuery, searchOptions } from '@/lib/search-query'
import { supabase } from '@/lib/supabase'

import { productKeys, type ProductFilters } from './keys'

/** A product as anyone may read it: every column but the seller's `contact` (see lib/listing-columns.ts). */
export type Product = Omit<Tables<'products'>, 'contact'>

/** One page of active products, newest first, by category, status (New/Used), location and name. */
export async function getProducts(filters: ProductFilters, signal?: AbortSignal): Promise<Page<Product>> {
  let request = supabase.from('products').select(productSelect, { count: 'estimated' }).eq('is_active', true)
  if (filters.category) request = request.eq('category', filters.category)
  if (filters.status) request = request.eq('status', filters.status)
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

export const getProductsQueryOptions = (filters: ProductFilters) =>
  queryOptions({
    queryKey: productKeys.list(filters),
    queryFn: ({ signal }) => getProducts(filters, signal),
    placeholderData: keepPreviousData,
  })

export function useProducts(filters: ProductFilters) {
  return useQuery(getProductsQueryOptions(filters))
}
