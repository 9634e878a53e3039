import { queryOptions, useQuery } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

type TablesOf = Database['public']['Tables']
export type Trade = TablesOf['p2p_trades']['Row']
export type TradeEvent = TablesOf['p2p_trade_events']['Row']
export type TradeMessage = TablesOf['p2p_trade_messages']['Row']
export type TradeRating = TablesOf['p2p_trade_ratings']['Row']
export type Trader = {
  id: string
  full_name: string | null
  kyc_verified: boolean
  completed_trades: number
  completion_rate: number | null
  rating_avg: number | null
  rating_count: number
}

/** A trade the caller is a party to (RLS hides any other: null). */
export async function getTrade(id: string, signal?: AbortSignal): Promise<Trade | null> {
  let request = supabase.from('p2p_trades').select('*').eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data ? { ...data, amount: Number(data.amount), rate_per_unit: Number(data.rate_per_unit), total_kes: Number(data.total_kes) } : null
}

export const getTradeQueryOptions = (id: string) =>
  queryOptions({ queryKey: p2pKeys.trade(id), queryFn: ({ signal }) => getTrade(id, signal) })

export function useTrade(id: string) {
  return useQuery(getTradeQueryOptions(id))
}

/** The trade's status changes, oldest first. */
export async function getTradeEvents(id: string, signal?: AbortSignal): Promise<TradeEvent[]> {
  let request = supabase.from('p2p_trade_events').select('*').eq('trade_id', id).order('id', { ascending: true })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useTradeEvents(id: string) {
  return useQuery({ queryKey: p2pKeys.tradeEvents(id), queryFn: ({ signal }) => getTradeEvents(id, signal) })
}

/** The trade's chat, oldest first. */
export async function getTradeMessages(id: string, signal?: AbortSignal): Promise<TradeMessage[]> {
  let request = supabase.from('p2p_trade_messages').select('*').eq('trade_id', id).order('created_at', { ascending: true })
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useTradeMessages(id: string) {
  return useQuery({ queryKey: p2pKeys.tradeMessages(id), queryFn: ({ signal }) => getTradeMessages(id, signal) })
}

/** The ratings given on this trade (at most one per party). */
export async function getTradeRatings(id: string, signal?: AbortSignal): Promise<TradeRating[]> {
  let request = supabase.from('p2p_trade_ratings').select('*').eq('trade_id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export function useTradeRatings(id: string, enabled: boolean) {
  return useQuery({ queryKey: p2pKeys.tradeRatings(id), queryFn: ({ signal }) => getTradeRatings(id, signal), enabled })
}

/** A counterparty's public face: name, KYC badge and P2P record (public_profiles, p2p_trader_stats). */
export async function getTrader(userId: string, signal?: AbortSignal): Promise<Trader> {
  let profile = supabase.from('public_profiles').select('id, full_name, kyc_verified').eq('id', userId)
  let stats = supabase.from('p2p_trader_stats').select('*').eq('user_id', userId)
  if (signal) {
    profile = profile.abortSignal(signal)
    stats = stats.abortSignal(signal)
  }
  const [{ data: p }, { data: s }] = await Promise.all([profile.maybeSingle().throwOnError(), stats.maybeSingle().throwOnError()])
  return {
    id: userId,
    full_name: p?.full_name ?? null,
    kyc_verified: Boolean(p?.kyc_verified),
    completed_trades: s?.completed_trades ?? 0,
    completion_rate: s?.completion_rate == null ? null : Number(s.completion_rate),
    rating_avg: s?.rating_avg == null ? null : Number(s.rating_avg),
    rating_count: s?.rating_count ?? 0,
  }
}

export function useTrader(userId: string | undefined) {
  return useQuery({
    queryKey: p2pKeys.trader(userId ?? ''),
    queryFn: ({ signal }) => getTrader(userId ?? '', signal),
    enabled: Boolean(userId),
  })
}

export type MyTrade = Trade & { counterparty_name: string | null }

/** The caller's trades, newest first, with each counterparty's name. */
export async function getMyTrades(userId: string, signal?: AbortSignal): Promise<MyTrade[]> {
  let request = supabase
    .from('p2p_trades')
    .select('*')
    .or(`buyer_id.eq.${userId},seller_id.eq.${userId}`)
    .order('created_at', { ascending: false })
    .limit(200)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  const trades = data ?? []
  const others = [...new Set(trades.map((t) => (t.buyer_id === userId ? t.seller_id : t.buyer_id)))]
  const names = new Map<string, string | null>()
  if (others.length) {
    let profiles = supabase.from('public_profiles').select('id, full_name').in('id', others)
    if (signal) profiles = profiles.abortSignal(signal)
    const { data: rows } = await profiles.throwOnError()
    for (const row of rows ?? []) names.set(row.id, row.full_name)
  }
  return trades.map((t) => ({
    ...t,
    amount: Number(t.amount),
    rate_per_unit: Number(t.rate_per_unit),
    total_kes: Number(t.total_kes),
    counterparty_name: names.get(t.buyer_id === userId ? t.seller_id : t.buyer_id) ?? null,
  }))
}

export function useMyTrades(userId: string | undefined) {
  return useQuery({
    queryKey: p2pKeys.myTrades(userId ?? ''),
    queryFn: ({ signal }) => getMyTrades(userId ?? '', signal),
    enabled: Boolean(userId),
  })
}
