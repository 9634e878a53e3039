import { queryOptions, useQuery } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

/** The four listing kinds the dashboard counts, with their table and owner column. */
export const listingSources = [
  { key: 'properties', table: 'properties', owner: 'user_id' },
  { key: 'products', table: 'products', owner: 'user_id' },
  { key: 'lands', table: 'lands', owner: 'userid' },
  { key: 'services', table: 'service_providers', owner: 'userid' },
] as const
export type ListingSourceKey = (typeof listingSources)[number]['key']

/** The states a listing is counted in (one listing may count in two: active and expiring). */
export const listingStates = ['active', 'pending', 'unpaid', 'rejected', 'expiring'] as const
export type ListingState = (typeof listingStates)[number]

export type ListingCounts = Record<ListingState, number>
export type OfferCounts = { active: number; expiring: number; total: number }

export type DashboardSummary = {
  listings: Record<ListingSourceKey, ListingCounts>
  offers: OfferCounts
  nestcoins: number
  openTrades: number
}

/** Listings (and offers) whose paid period ends within this many days count as expiring. */
export const EXPIRING_DAYS = 3

export const dashboardKeys = {
  all: ['dashboard'] as const,
  summary: (userId: string) => [...dashboardKeys.all, 'summary', userId] as const,
}

/** A query builder of a count-only read, before it is sent. */
type Countable = { abortSignal(signal: AbortSignal): Countable; throwOnError(): PromiseLike<{ count: number | null }> }

async function countOf(request: Countable, signal?: AbortSignal): Promise<number> {
  const { count } = await (signal ? request.abortSignal(signal) : request).throwOnError()
  return count ?? 0
}

/**
 * A HEAD count of the user's rows of one listing table in one state: active
 * (is_active), pending approval, unpaid draft, rejected, or active with its
 * paid period ending within EXPIRING_DAYS.
 */
function countListings(source: (typeof listingSources)[number], userId: string, state: ListingState, now: Date): Countable {
  // The four tables share these columns (0010); the query builder's types
  // cannot follow a table chosen at run time, so it is typed as properties.
  let request = supabase
    .from(source.table as 'properties')
    .select('id', { count: 'exact', head: true })
    .eq(source.owner as 'user_id', userId)
  switch (state) {
    case 'active':
      request = request.eq('is_active', true)
      break
    case 'pending':
    case 'unpaid':
    case 'rejected':
      request = request.eq('payment_status', state)
      break
    case 'expiring':
      request = request
        .eq('is_active', true)
        .gte('paid_until', now.toISOString())
        .lte('paid_until', new Date(now.getTime() + EXPIRING_DAYS * 86_400_000).toISOString())
      break
  }
  return request
}

/**
 * Everything the signed-in dashboard shows, read with count-only (HEAD)
 * requests where a number is all it needs: own listings of each kind by
 * state, own P2P offers (active, expiring, all), open P2P trades where the
 * user is buyer or seller, and the Nestcoin balance.
 */
export async function getDashboardSummary(userId: string, signal?: AbortSignal, now = new Date()): Promise<DashboardSummary> {
  const soon = new Date(now.getTime() + EXPIRING_DAYS * 86_400_000).toISOString()
  const offers = () => supabase.from('p2p_offers').select('id', { count: 'exact', head: true }).eq('user_id', userId)

  const listingCounts = Promise.all(
    listingSources.map(async (source) => {
      const counts = await Promise.all(listingStates.map((state) => countOf(countListings(source, userId, state, now), signal)))
      return [source.key, Object.fromEntries(listingStates.map((state, i) => [state, counts[i]])) as ListingCounts] as const
    }),
  )
  const offerCounts = Promise.all([
    countOf(offers().eq('status', 'active'), signal),
    countOf(offers().eq('status', 'active').gte('expires_at', now.toISOString()).lte('expires_at', soon), signal),
    countOf(offers(), signal),
  ])
  const openTrades = countOf(
    supabase
      .from('p2p_trades')
      .select('id', { count: 'exact', head: true })
      .or(`buyer_id.eq.${userId},seller_id.eq.${userId}`)
      .in('status', ['escrow_locked', 'paid', 'disputed']),
    signal,
  )
  let balanceRequest = supabase.from('wallets').select('balance').eq('user_id', userId).eq('currency', 'nestcoins').eq('kind', 'user')
  if (signal) balanceRequest = balanceRequest.abortSignal(signal)
  const balance = balanceRequest.maybeSingle().throwOnError()

  const [listings, [active, expiring, total], trades, wallet] = await Promise.all([listingCounts, offerCounts, openTrades, balance])
  return {
    listings: Object.fromEntries(listings) as Record<ListingSourceKey, ListingCounts>,
    offers: { active, expiring, total },
    nestcoins: wallet.data?.balance ?? 0,
    openTrades: trades,
  }
}

export const getDashboardSummaryQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: dashboardKeys.summary(userId),
    queryFn: ({ signal }) => getDashboardSummary(userId, signal),
    staleTime: 0,
  })

export function useDashboardSummary(userId: string) {
  return useQuery(getDashboardSummaryQueryOptions(userId))
}
