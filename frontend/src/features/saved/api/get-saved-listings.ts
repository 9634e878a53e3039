import { queryOptions, useQuery } from '@tanstack/react-query'

import { productSelect, propertySelect, serviceProviderSelect } from '@/lib/listing-columns'
import type { ListingKind } from '@/lib/listing-fees'
import {
  landSummary,
  landSummarySelect,
  listingKinds,
  productSummary,
  propertySummary,
  serviceSummary,
  type ListingSummary,
} from '@/lib/listing-summary'
import { supabase } from '@/lib/supabase'

import { savedKeys } from './keys'

/**
 * One saved listing: what was saved and when, and the listing as the user
 * may see it now, or null when it is no longer visible to them (paused,
 * expired, hidden by moderation). Deleted listings lose their saved rows on
 * the server.
 */
export type SavedEntry = { kind: ListingKind; id: string; savedAt: string; listing: ListingSummary | null }

/** Saved entries of one kind, newest saved first. */
export type SavedGroup = { kind: ListingKind; entries: SavedEntry[] }

/** Ids per `in.(...)` request, so the URL stays short however many are saved. */
export const IDS_PER_REQUEST = 100

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** The listings of one kind with these ids that the caller can see, as summaries. */
async function fetchSummaries(kind: ListingKind, ids: string[], signal?: AbortSignal): Promise<ListingSummary[]> {
  switch (kind) {
    case 'property': {
      let request = supabase.from('properties').select(propertySelect).in('id', ids)
      if (signal) request = request.abortSignal(signal)
      const { data } = await request.throwOnError()
      return (data ?? []).map(propertySummary)
    }
    case 'product': {
      let request = supabase.from('products').select(productSelect).in('id', ids)
      if (signal) request = request.abortSignal(signal)
      const { data } = await request.throwOnError()
      return (data ?? []).map(productSummary)
    }
    case 'land': {
      let request = supabase.from('lands').select(landSummarySelect).in('id', ids)
      if (signal) request = request.abortSignal(signal)
      const { data } = await request.throwOnError()
      return (data ?? []).map(landSummary)
    }
    case 'service': {
      let request = supabase.from('service_providers').select(serviceProviderSelect).in('id', ids)
      if (signal) request = request.abortSignal(signal)
      const { data } = await request.throwOnError()
      return (data ?? []).map(serviceSummary)
    }
  }
}

/**
 * The user's saved listings, newest saved first: the saved rows, then per
 * kind one `id=in.(...)` read of the listings with the visitor columns (RLS
 * decides what is still visible; the rest come back as `listing: null`).
 */
export async function getSavedListings(userId: string, signal?: AbortSignal): Promise<SavedEntry[]> {
  let request = supabase
    .from('saved_listings')
    .select('listing_kind,listing_id,created_at')
    .eq('user_id', userId)
    .order('created_at', { ascending: false })
  if (signal) request = request.abortSignal(signal)
  const { data: rows } = await request.throwOnError()
  const saved = rows ?? []
  const found = new Map<string, ListingSummary>()
  await Promise.all(
    listingKinds.flatMap((kind) => {
      const ids = saved.filter((row) => row.listing_kind === kind).map((row) => row.listing_id)
      return chunks(ids, IDS_PER_REQUEST).map(async (part) => {
        for (const summary of await fetchSummaries(kind, part, signal)) found.set(`${kind}:${summary.id}`, summary)
      })
    }),
  )
  return saved.map((row) => ({
    kind: row.listing_kind,
    id: row.listing_id,
    savedAt: row.created_at,
    listing: found.get(`${row.listing_kind}:${row.listing_id}`) ?? null,
  }))
}

/** Saved entries grouped by kind in the app's order (properties, products, lands, services); empty kinds left out. */
export function groupSaved(entries: readonly SavedEntry[]): SavedGroup[] {
  return listingKinds
    .map((kind) => ({ kind, entries: entries.filter((entry) => entry.kind === kind) }))
    .filter((group) => group.entries.length > 0)
}

export const getSavedListingsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: savedKeys.list(userId), queryFn: ({ signal }) => getSavedListings(userId, signal) })

export function useSavedListings(userId: string | undefined) {
  return useQuery({ ...getSavedListingsQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}
