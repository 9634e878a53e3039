import { queryOptions, useQuery } from '@tanstack/react-query'

import { productSelect } from '@/lib/listing-columns'
import { supabase } from '@/lib/supabase'
import { isUuid } from '@/lib/validation'

import type { Product } from './get-products'
import { productKeys } from './keys'

/** One product by id; null when not found or not visible. */
export async function getProduct(id: string, signal?: AbortSignal): Promise<Product | null> {
  // A malformed id (a mistyped link) is simply not found, without a failing request.
  if (!isUuid(id)) return null
  let request = supabase.from('products').select(productSelect).eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data
}

export const getProductQueryOptions = (id: string) =>
  queryOptions({ queryKey: productKeys.detail(id), queryFn: ({ signal }) => getProduct(id, signal) })

export function useProduct(id: string) {
  return useQuery(getProductQueryOptions(id))
}

/** Up to 4 other active products of the same category. */
export async function getSimilarProducts(product: Pick<Product, 'id' | 'category'>, signal?: AbortSignal): Promise<Product[]> {
  let request = supabase
    .from('products')
    .select(productSelect)
    .eq('is_active', true)
    .eq('category', product.category)
    .neq('id', product.id)
    .order('created_at', { ascending: false })
    .limit(4)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useSimilarProducts(product: Pick<Product, 'id' | 'category'> | null | undefined) {
  return useQuery({
    queryKey: productKeys.similar(product?.id ?? ''),
    queryFn: ({ signal }) => getSimilarProducts(product!, signal),
    enabled: Boolean(product),
  })
}
