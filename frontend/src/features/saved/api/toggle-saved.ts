import { useMutation, useQueryClient } from '@tanstack/react-query'

import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

import type { SavedEntry } from './get-saved-listings'
import { savedKeys } from './keys'

export type ToggleSaved = { userId: string; kind: ListingKind; id: string; save: boolean }

/** PostgreSQL's unique_violation: the listing is already saved. */
const UNIQUE_VIOLATION = '23505'

function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined
}

/**
 * Saves a listing for the caller (user_id defaults to auth.uid() on the
 * server; RLS lets a user save only listings they can see). Saving twice is
 * not an error. Returns nothing: no row is read back.
 */
export async function saveListing(kind: ListingKind, id: string): Promise<void> {
  try {
    await supabase.from('saved_listings').insert({ listing_kind: kind, listing_id: id }).throwOnError()
  } catch (error) {
    if (codeOf(error) !== UNIQUE_VIOLATION) throw error
  }
}

/** Removes a listing from the caller's saved listings (a no-op when it was not saved). */
export async function unsaveListing(userId: string, kind: ListingKind, id: string): Promise<void> {
  await supabase.from('saved_listings').delete().eq('user_id', userId).eq('listing_kind', kind).eq('listing_id', id).throwOnError()
}

/** Saves or unsaves a listing. */
export function toggleSaved({ userId, kind, id, save }: ToggleSaved): Promise<void> {
  return save ? saveListing(kind, id) : unsaveListing(userId, kind, id)
}

/** True when saving failed because the caller cannot see the listing (any more): RLS refused the row. */
export function isUnavailableListing(error: unknown): boolean {
  return codeOf(error) === '42501'
}

/**
 * Saves or unsaves with an optimistic update: the heart (the kind's saved
 * ids) and the /saved list change at once, roll back if the server refuses,
 * and are re-read afterwards.
 */
export function useToggleSaved() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: toggleSaved,
    onMutate: async ({ userId, kind, id, save }) => {
      const idsKey = savedKeys.ids(userId, kind)
      const listKey = savedKeys.list(userId)
      await Promise.all([queryClient.cancelQueries({ queryKey: idsKey }), queryClient.cancelQueries({ queryKey: listKey })])
      const previousIds = queryClient.getQueryData<string[]>(idsKey)
      const previousList = queryClient.getQueryData<SavedEntry[]>(listKey)
      queryClient.setQueryData<string[]>(idsKey, (ids = []) =>
        save ? (ids.includes(id) ? ids : [...ids, id]) : ids.filter((saved) => saved !== id),
      )
      if (!save && previousList) {
        queryClient.setQueryData<SavedEntry[]>(listKey, previousList.filter((entry) => !(entry.kind === kind && entry.id === id)))
      }
      return { previousIds, previousList }
    },
    onError: (_error, { userId, kind }, context) => {
      queryClient.setQueryData(savedKeys.ids(userId, kind), context?.previousIds)
      if (context?.previousList) queryClient.setQueryData(savedKeys.list(userId), context.previousList)
    },
    onSettled: (_data, _error, { userId, kind }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: savedKeys.ids(userId, kind) }),
        queryClient.invalidateQueries({ queryKey: savedKeys.list(userId) }),
      ]),
  })
}
