import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { myOfferKeys } from './keys'

/** One of the user's own offers, every column (0011, 0020). */
export type MyOffer = Tables<'p2p_offers'>

/** Trade states that still hold coins in escrow (not yet settled). */
export const openTradeStatuses = ['escrow_locked', 'paid', 'disputed'] as const

/** Every offer of `userId`, whatever its status, newest first (RLS: owners read all of theirs). */
export async function getMyOffers(userId: string, signal?: AbortSignal): Promise<MyOffer[]> {
  let request = supabase.from('p2p_offers').select('*').eq('user_id', userId).order('created_at', { ascending: false })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  // numeric(12,2) may arrive as a string from some servers; the app works in numbers.
  return (data ?? []).map((offer) => ({ ...offer, rate_per_unit: Number(offer.rate_per_unit) }))
}

export const getMyOffersQueryOptions = (userId: string) =>
  queryOptions({ queryKey: myOfferKeys.mine(userId), queryFn: ({ signal }) => getMyOffers(userId, signal), staleTime: 0 })

export function useMyOffers(userId: string | undefined) {
  return useQuery({ ...getMyOffersQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** How many trades on an offer are still open (awaiting payment, awaiting release or disputed). */
export async function countOpenTrades(offerId: string, signal?: AbortSignal): Promise<number> {
  let request = supabase
    .from('p2p_trades')
    .select('id', { count: 'exact', head: true })
    .eq('offer_id', offerId)
    .in('status', [...openTradeStatuses])
  if (signal) request = request.abortSignal(signal)
  const { count } = await request.throwOnError()
  return count ?? 0
}

/** The open trades of an offer, read when its delete dialog opens. */
export function useOpenTradeCount(offerId: string, enabled: boolean) {
  return useQuery({
    queryKey: myOfferKeys.openTrades(offerId),
    queryFn: ({ signal }) => countOpenTrades(offerId, signal),
    enabled,
    staleTime: 0,
  })
}

/**
 * Deletes one of the caller's offers (RLS lets only the owner and admins);
 * a refusal by the database comes back as its error, message included.
 */
export async function deleteOffer(id: string): Promise<void> {
  await supabase.from('p2p_offers').delete().eq('id', id).throwOnError()
}

export function useDeleteOffer() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteOffer,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: myOfferKeys.all }),
  })
}
