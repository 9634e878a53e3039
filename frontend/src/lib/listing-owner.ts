import { useQuery } from '@tanstack/react-query'

import { useAuth } from '@/lib/auth'
import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

/** What a detail page may show about a listing's owner (get_listing_owner). */
export type ListingOwner = {
  /** The owner has an approved KYC submission. */
  kyc_verified: boolean
  /** The listing's contact, else the owner's phone; null unless signed in. */
  contact: string | null
}

/** Query keys of the owner facts; the caller is part of the key, since only signed-in callers get the contact. */
export const listingOwnerKeys = {
  all: ['listing-owner'] as const,
  detail: (kind: ListingKind, id: string, userId: string | null) => [...listingOwnerKeys.all, kind, id, userId ?? 'anon'] as const,
}

/** The owner facts of one listing; null when the listing is not visible to the caller. */
export async function getListingOwner(kind: ListingKind, id: string, signal?: AbortSignal): Promise<ListingOwner | null> {
  let request = supabase.rpc('get_listing_owner', { p_kind: kind, p_id: id })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null
  const { kyc_verified, contact } = data as Record<string, unknown>
  return {
    kyc_verified: kyc_verified === true,
    contact: typeof contact === 'string' && contact.trim() ? contact : null,
  }
}

/**
 * The owner facts of a listing shown on its detail page, once the session is
 * known (so a visitor's contact-less answer is never reused after sign-in)
 * and the listing has loaded (`enabled`).
 */
export function useListingOwner(kind: ListingKind, id: string | undefined, enabled = true) {
  const { status, user } = useAuth()
  const userId = status === 'signed-in' ? (user?.id ?? null) : null
  return useQuery({
    queryKey: listingOwnerKeys.detail(kind, id ?? '', userId),
    queryFn: ({ signal }) => getListingOwner(kind, id!, signal),
    enabled: enabled && Boolean(id) && status !== 'loading',
  })
}
