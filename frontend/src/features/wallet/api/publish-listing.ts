import { useMutation, useQueryClient } from '@tanstack/react-query'

import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

import { walletKeys } from './keys'

export type PublishListingInput = {
  kind: ListingKind
  listingId: string
  days: number
  /** The same key for a retried payment charges once. */
  idempotencyKey: string
}

export type PublishListingResult = {
  total: number
  per_day: number
  days: number
  is_active: boolean
  payment_status: string
  balance: number
}

/** Query-key roots of the listing features, refreshed after a payment. */
const listingRoots: Record<ListingKind, string> = {
  property: 'properties',
  land: 'lands',
  product: 'products',
  service: 'services',
}

/** Pays the listing fee in Nestcoins (publish_listing): per day × days from the caller's wallet. */
export async function publishListing(input: PublishListingInput): Promise<PublishListingResult> {
  const { data } = await supabase
    .rpc('publish_listing', {
      p_kind: input.kind,
      p_listing_id: input.listingId,
      p_days: input.days,
      p_idempotency_key: input.idempotencyKey,
    })
    .throwOnError()
  return data as unknown as PublishListingResult
}

/** True when the server refused for lack of Nestcoins. */
export function isInsufficientBalance(error: unknown): boolean {
  return error instanceof Error && /insufficient/i.test(error.message)
}

export function usePublishListing() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: publishListing,
    onSuccess: (_result, input) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: walletKeys.all }),
        queryClient.invalidateQueries({ queryKey: [listingRoots[input.kind]] }),
      ]),
  })
}
