import { queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'
import { isUuid } from '@/lib/validation'

import { serviceKeys } from './keys'

/** A service provider row with every column, `phone` included: what its owner edits. */
export type OwnService = Tables<'service_providers'>

/**
 * One of the caller's own services with every column, for the edit form,
 * which must keep the phone (visitors' reads leave it out, see
 * lib/listing-columns.ts). Null when the id is not a service of `userId`.
 * Signed-in callers only: anon may not select the phone.
 */
export async function getOwnService(id: string, userId: string, signal?: AbortSignal): Promise<OwnService | null> {
  if (!isUuid(id)) return null
  let request = supabase.from('service_providers').select('*').eq('id', id).eq('userid', userId)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data
}

export const getOwnServiceQueryOptions = (id: string, userId: string) =>
  queryOptions({ queryKey: serviceKeys.own(id, userId), queryFn: ({ signal }) => getOwnService(id, userId, signal) })

/** The caller's service `id` for editing; waits until the caller is known. */
export function useOwnService(id: string, userId: string | undefined) {
  return useQuery({ ...getOwnServiceQueryOptions(id, userId ?? ''), enabled: Boolean(userId) })
}
