import { queryOptions, useQuery } from '@tanstack/react-query'

import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

import { walletKeys } from './keys'

/** Listing fee postings read per page of the fees section; a user has far fewer. */
const MAX_FEE_ROWS = 1000

const listingReference = /^(property|product|land|service):([0-9a-f-]{36})$/i

/**
 * The listing a ledger reference names: publish_listing and moderate_listing
 * record '<kind>:<listing id>' (e.g. 'property:…'); anything else is null.
 */
export function parseListingReference(reference: string | null): { kind: ListingKind; id: string } | null {
  const match = reference ? listingReference.exec(reference) : null
  return match ? { kind: match[1].toLowerCase() as ListingKind, id: match[2].toLowerCase() } : null
}

/** The fees paid (and refunded) for one listing. */
export type ListingFeeSummary = {
  reference: string
  kind: ListingKind
  listingId: string
  /** The listing's title (name for products and services); null when untitled. */
  title: string | null
  /** False once the listing was deleted: its fees stay in the ledger. */
  exists: boolean
  /** Nestcoins paid in listing fees, refunds not deducted. */
  paid: number
  /** Nestcoins refunded when an administrator rejected the listing. */
  refunded: number
  /** How many fee payments. */
  payments: number
  /** The newest posting's time. */
  lastAt: string
}

/** Titles of the caller's listings of one kind, by id (RLS lets owners read their own, whatever their state). */
async function titlesOf(kind: ListingKind, ids: string[], signal?: AbortSignal): Promise<Map<string, string | null>> {
  const titles = new Map<string, string | null>()
  if (ids.length === 0) return titles
  const read = () => {
    switch (kind) {
      case 'property':
        return supabase.from('properties').select('id, title').in('id', ids)
      case 'land':
        return supabase.from('lands').select('id, title').in('id', ids)
      case 'product':
        return supabase.from('products').select('id, title:name').in('id', ids)
      case 'service':
        return supabase.from('service_providers').select('id, title:name').in('id', ids)
    }
  }
  let request = read()
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  for (const row of (data ?? []) as { id: string; title: string | null }[]) titles.set(row.id, row.title)
  return titles
}

/**
 * The user's listing fees grouped per listing (the ledger reference), newest
 * payment first, with each listing's title fetched from its table
 * (id=in.(…), one request per kind).
 */
export async function getListingFees(userId: string, signal?: AbortSignal): Promise<ListingFeeSummary[]> {
  let request = supabase
    .from('wallet_history')
    .select('kind, amount, reference, created_at')
    .eq('user_id', userId)
    .in('kind', ['listing_fee', 'listing_refund'])
    .order('created_at', { ascending: false })
    .limit(MAX_FEE_ROWS)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()

  const byReference = new Map<string, ListingFeeSummary>()
  for (const row of data ?? []) {
    const listing = parseListingReference(row.reference)
    if (!listing) continue
    const reference = `${listing.kind}:${listing.id}`
    let summary = byReference.get(reference)
    if (!summary) {
      summary = { reference, kind: listing.kind, listingId: listing.id, title: null, exists: false, paid: 0, refunded: 0, payments: 0, lastAt: row.created_at }
      byReference.set(reference, summary)
    }
    if (row.kind === 'listing_fee') {
      summary.paid += Math.abs(row.amount)
      summary.payments += 1
    } else {
      summary.refunded += Math.abs(row.amount)
    }
    if (row.created_at > summary.lastAt) summary.lastAt = row.created_at
  }

  const summaries = [...byReference.values()]
  const kinds: ListingKind[] = ['property', 'product', 'land', 'service']
  const titles = await Promise.all(
    kinds.map((kind) => titlesOf(kind, summaries.filter((summary) => summary.kind === kind).map((summary) => summary.listingId), signal)),
  )
  for (const summary of summaries) {
    const found = titles[kinds.indexOf(summary.kind)]
    summary.exists = found.has(summary.listingId)
    summary.title = found.get(summary.listingId) ?? null
  }
  return summaries.sort((a, b) => (a.lastAt < b.lastAt ? 1 : a.lastAt > b.lastAt ? -1 : 0))
}

export const getListingFeesQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: walletKeys.listingFees(userId),
    queryFn: ({ signal }) => getListingFees(userId, signal),
    staleTime: 0,
  })

export function useListingFees(userId: string | undefined) {
  return useQuery({ ...getListingFeesQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}
