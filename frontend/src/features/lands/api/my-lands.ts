import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { landKeys } from './keys'

/** One of the owner's own lands rows, every column (RLS lets owners read theirs, active or not). */
export type MyLand = Tables<'lands'>

/** Every listing of `userId`, newest first, whatever its payment or moderation state. */
export async function getMyLands(userId: string, signal?: AbortSignal): Promise<MyLand[]> {
  let request = supabase.from('lands').select('*').eq('userid', userId).order('createdAt', { ascending: false })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export const getMyLandsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: landKeys.mine(userId), queryFn: ({ signal }) => getMyLands(userId, signal) })

/** The caller's own listings; waits until the caller is known. */
export function useMyLands(userId: string | undefined) {
  return useQuery({ ...getMyLandsQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** Deletes one of the caller's listings (RLS refuses anyone else's). */
export async function deleteLand(id: string): Promise<void> {
  await supabase.from('lands').delete().eq('id', id).throwOnError()
}

export function useDeleteLand() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteLand,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: landKeys.all }),
  })
}

/**
 * Switches a listing on or off. The server refuses to switch on an unpaid
 * listing ('Pay the listing fee to activate this listing').
 */
export async function setLandActive({ id, active }: { id: string; active: boolean }): Promise<void> {
  await supabase.from('lands').update({ is_active: active }).eq('id', id).throwOnError()
}

export function useSetLandActive() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setLandActive,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: landKeys.all }),
  })
}
