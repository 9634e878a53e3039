import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'

import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

/**
 * Keeps the board live: any change to an offer the caller may read (new,
 * traded on, filled, cancelled, expired; RLS decides) refetches the board.
 */
export function useBoardRealtime(enabled: boolean) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!enabled) return
    const channel = supabase
      .channel('p2p-board')
      .on('postgres_changes', { event: '*', schema: 'public', table: 'p2p_offers' }, () => {
        void queryClient.invalidateQueries({ queryKey: p2pKeys.boards() })
      })
      .subscribe()
    return () => {
      void supabase.removeChannel(channel)
    }
  }, [enabled, queryClient])
}

/**
 * Keeps the caller's trades live: a trade opened on their offer, or any
 * status change, refetches the lists, the trade and the balances.
 */
export function useMyTradesRealtime(userId: string | undefined) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!userId) return
    const refresh = () => {
      void queryClient.invalidateQueries({ queryKey: p2pKeys.myTrades(userId) })
      void queryClient.invalidateQueries({ queryKey: p2pKeys.balances() })
    }
    const channel = supabase
      .channel(`p2p-my-trades-${userId}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'p2p_trades', filter: `buyer_id=eq.${userId}` }, refresh)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'p2p_trades', filter: `seller_id=eq.${userId}` }, refresh)
      .subscribe()
    return () => {
      void supabase.removeChannel(channel)
    }
  }, [userId, queryClient])
}

/** Keeps one trade page live: the trade row, its timeline and its chat. */
export function useTradeRealtime(tradeId: string) {
  const queryClient = useQueryClient()
  useEffect(() => {
    const channel = supabase
      .channel(`p2p-trade-${tradeId}`)
      .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'p2p_trades', filter: `id=eq.${tradeId}` }, () => {
        void queryClient.invalidateQueries({ queryKey: p2pKeys.trade(tradeId), exact: true })
        void queryClient.invalidateQueries({ queryKey: p2pKeys.balances() })
      })
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'p2p_trade_events', filter: `trade_id=eq.${tradeId}` }, () => {
        void queryClient.invalidateQueries({ queryKey: p2pKeys.tradeEvents(tradeId) })
        void queryClient.invalidateQueries({ queryKey: p2pKeys.trade(tradeId), exact: true })
      })
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'p2p_trade_messages', filter: `trade_id=eq.${tradeId}` }, () => {
        void queryClient.invalidateQueries({ queryKey: p2pKeys.tradeMessages(tradeId) })
      })
      .subscribe()
    return () => {
      void supabase.removeChannel(channel)
    }
  }, [tradeId, queryClient])
}
