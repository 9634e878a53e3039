import { queryOptions, useQuery } from '@tanstack/react-query'

import { propertySelect } from '@/lib/listing-columns'
import { supabase } from '@/lib/supabase'
import { isUuid } from '@/lib/validation'

import type { Property } from './get-properties'
import { propertyKeys } from './keys'

/** One property by id (RLS shows it when active, or to its owner). Null when not found. */
export async function getProperty(id: string, signal?: AbortSignal): Promise<Property | null> {
  // A malformed id (a mistyped link) is simply not found, without a failing request.
  if (!isUuid(id)) return null
  let request = supabase.from('properties').select(propertySelect).eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data
}

export const getPropertyQueryOptions = (id: string) =>
  queryOptions({ queryKey: propertyKeys.detail(id), queryFn: ({ signal }) => getProperty(id, signal) })

export function useProperty(id: string) {
  return useQuery(getPropertyQueryOptions(id))
}

/** Up to 4 other active properties of the same type and purpose (rent or sale). */
export async function getSimilarProperties(property: Pick<Property, 'id' | 'type' | 'purpose'>, signal?: AbortSignal): Promise<Property[]> {
  let request = supabase
    .from('properties')
    .select(propertySelect)
    .eq('is_active', true)
    .eq('type', property.type)
    .eq('purpose', property.purpose)
    .neq('id', property.id)
    .order('created_at', { ascending: false })
    .limit(4)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useSimilarProperties(property: Pick<Property, 'id' | 'type' | 'purpose'> | null | undefined) {
  return useQuery({
    queryKey: propertyKeys.similar(property?.id ?? ''),
    queryFn: ({ signal }) => getSimilarProperties(property!, signal),
    enabled: Boolean(property),
  })
}
