import { queryOptions, useQuery } from '@tanstack/react-query'

import { serviceProviderSelect } from '@/lib/listing-columns'
import { supabase } from '@/lib/supabase'
import { isUuid } from '@/lib/validation'

import type { ServiceProvider } from './get-services'
import { serviceKeys } from './keys'

/** One service provider by id; null when not found or not visible. */
export async function getService(id: string, signal?: AbortSignal): Promise<ServiceProvider | null> {
  // A malformed id (a mistyped link) is simply not found, without a failing request.
  if (!isUuid(id)) return null
  let request = supabase.from('service_providers').select(serviceProviderSelect).eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data
}

export const getServiceQueryOptions = (id: string) =>
  queryOptions({ queryKey: serviceKeys.detail(id), queryFn: ({ signal }) => getService(id, signal) })

export function useService(id: string) {
  return useQuery(getServiceQueryOptions(id))
}

/** Up to 4 other active providers of the same category. */
export async function getSimilarServices(
  provider: Pick<ServiceProvider, 'id' | 'category'>,
  signal?: AbortSignal,
): Promise<ServiceProvider[]> {
  let request = supabase
    .from('service_providers')
    .select(serviceProviderSelect)
    .eq('is_active', true)
    .eq('category', provider.category)
    .neq('id', provider.id)
    .order('created_at', { ascending: false })
    .limit(4)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useSimilarServices(provider: Pick<ServiceProvider, 'id' | 'category'> | null | undefined) {
  return useQuery({
    queryKey: serviceKeys.similar(provider?.id ?? ''),
    queryFn: ({ signal }) => getSimilarServices(provider!, signal),
    enabled: Boolean(provider),
  })
}
