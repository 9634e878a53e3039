import { queryOptions, useQuery } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'
import { isUuid } from '@/lib/validation'

import type { Land } from './get-lands'
import { landKeys } from './keys'

/** One land listing by id; null when not found or not visible. */
export async function getLand(id: string, signal?: AbortSignal): Promise<Land | null> {
  // A malformed id (a mistyped link) is simply not found, without a failing request.
  if (!isUuid(id)) return null
  let request = supabase.from('lands').select('*').eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data
}

export const getLandQueryOptions = (id: string) =>
  queryOptions({ queryKey: landKeys.detail(id), queryFn: ({ signal }) => getLand(id, signal) })

export function useLand(id: string) {
  return useQuery(getLandQueryOptions(id))
}

/** Up to 4 other active lands of the same type. */
export async function getSimilarLands(land: Pick<Land, 'id' | 'type'>, signal?: AbortSignal): Promise<Land[]> {
  let request = supabase
    .from('lands')
    .select('*')
    .eq('is_active', true)
    .eq('type', land.type)
    .neq('id', land.id)
    .order('createdAt', { ascending: false })
    .limit(4)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useSimilarLands(land: Pick<Land, 'id' | 'type'> | null | undefined) {
  return useQuery({
    queryKey: landKeys.similar(land?.id ?? ''),
    queryFn: ({ signal }) => getSimilarLands(land!, signal),
    enabled: Boolean(land),
  })
}
