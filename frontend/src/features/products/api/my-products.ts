import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { productKeys } from './keys'

/** One of the owner's own products rows, every column (RLS lets owners read theirs, active or not). */
export type MyProduct = Tables<'products'>

/** Every listing of `userId`, newest first, whatever its payment or moderation state. */
export async function getMyProducts(userId: string, signal?: AbortSignal): Promise<MyProduct[]> {
  let request = supabase.from('products').select('*').eq('user_id', userId).order('created_at', { ascending: false })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export const getMyProductsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: productKeys.mine(userId), queryFn: ({ signal }) => getMyProducts(userId, signal) })

/** The caller's own listings; waits until the caller is known. */
export function useMyProducts(userId: string | undefined) {
  return useQuery({ ...getMyProductsQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** Deletes one of the caller's listings (RLS refuses anyone else's). */
export async function deleteProduct(id: string): Promise<void> {
  await supabase.from('products').delete().eq('id', id).throwOnError()
}

export function useDeleteProduct() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteProduct,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: productKeys.all }),
  })
}

/**
 * Switches a listing on or off. The server refuses to switch on an unpaid
 * listing ('Pay the listing fee to activate this listing').
 */
export async function setProductActive({ id, active }: { id: string; active: boolean }): Promise<void> {
  await supabase.from('products').update({ is_active: active }).eq('id', id).throwOnError()
}

export function useSetProductActive() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setProductActive,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: productKeys.all }),
  })
}
