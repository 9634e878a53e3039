import { queryOptions, useQuery } from '@tanstack/react-query'

import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

import { savedKeys } from './keys'

/** The ids of the listings of one kind the user saved (RLS: only their own rows). */
export async function getSavedIds(userId: string, kind: ListingKind, signal?: AbortSignal): Promise<string[]> {
  let request = supabase.from('saved_listings').select('listing_id').eq('user_id', userId).eq('listing_kind', kind)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return (data ?? []).map((row) => row.listing_id)
}

export const getSavedIdsQueryOptions = (userId: string, kind: ListingKind) =>
  queryOptions({ queryKey: savedKeys.ids(userId, kind), queryFn: ({ signal }) => getSavedIds(userId, kind, signal) })

/**
 * The saved ids of one kind for the signed-in user: every heart of that kind
 * on the page reads this one query. Idle without a user.
 */
export function useSavedIds(userId: string | undefined, kind: ListingKind) {
  return useQuery({ ...getSavedIdsQueryOptions(userId ?? '', kind), enabled: Boolean(userId) })
}
