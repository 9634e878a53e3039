import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { propertyKeys } from './keys'

/** One of the owner's own properties rows, every column (RLS lets owners read theirs, active or not). */
export type MyProperty = Tables<'properties'>

/** Every listing of `userId`, newest first, whatever its payment or moderation state. */
export async function getMyProperties(userId: string, signal?: AbortSignal): Promise<MyProperty[]> {
  let request = supabase.from('properties').select('*').eq('user_id', userId).order('created_at', { ascending: false })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export const getMyPropertiesQueryOptions = (userId: string) =>
  queryOptions({ queryKey: propertyKeys.mine(userId), queryFn: ({ signal }) => getMyProperties(userId, signal) })

/** The caller's own listings; waits until the caller is known. */
export function useMyProperties(userId: string | undefined) {
  return useQuery({ ...getMyPropertiesQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** Deletes one of the caller's listings (RLS refuses anyone else's). */
export async function deleteProperty(id: string): Promise<void> {
  await supabase.from('properties').delete().eq('id', id).throwOnError()
}

export function useDeleteProperty() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteProperty,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: propertyKeys.all }),
  })
}

/**
 * Switches a listing on or off. The server refuses to switch on an unpaid
 * listing ('Pay the listing fee to activate this listing').
 */
export async function setPropertyActive({ id, active }: { id: string; active: boolean }): Promise<void> {
  await supabase.from('properties').update({ is_active: active }).eq('id', id).throwOnError()
}

export function useSetPropertyActive() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setPropertyActive,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: propertyKeys.all }),
  })
}
