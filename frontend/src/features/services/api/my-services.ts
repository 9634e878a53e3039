import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { serviceKeys } from './keys'

/** One of the owner's own service_providers rows, every column (RLS lets owners read theirs, active or not). */
export type MyService = Tables<'service_providers'>

/** Every listing of `userId`, newest first, whatever its payment or moderation state. */
export async function getMyServices(userId: string, signal?: AbortSignal): Promise<MyService[]> {
  let request = supabase.from('service_providers').select('*').eq('userid', userId).order('created_at', { ascending: false })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export const getMyServicesQueryOptions = (userId: string) =>
  queryOptions({ queryKey: serviceKeys.mine(userId), queryFn: ({ signal }) => getMyServices(userId, signal) })

/** The caller's own listings; waits until the caller is known. */
export function useMyServices(userId: string | undefined) {
  return useQuery({ ...getMyServicesQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** Deletes one of the caller's listings (RLS refuses anyone else's). */
export async function deleteService(id: string): Promise<void> {
  await supabase.from('service_providers').delete().eq('id', id).throwOnError()
}

export function useDeleteService() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteService,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: serviceKeys.all }),
  })
}

/**
 * Switches a listing on or off. The server refuses to switch on an unpaid
 * listing ('Pay the listing fee to activate this listing').
 */
export async function setServiceActive({ id, active }: { id: string; active: boolean }): Promise<void> {
  await supabase.from('service_providers').update({ is_active: active }).eq('id', id).throwOnError()
}

export function useSetServiceActive() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setServiceActive,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: serviceKeys.all }),
  })
}
