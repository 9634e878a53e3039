import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { MPESA_CODE, P2P_MESSAGE_MAX, P2P_TEXT_MAX } from '@/config/p2p'
import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

/** 'I have paid': the M-Pesa transaction code, 10 uppercase letters and digits. */
export const paidSchema = z.object({
  code: z
    .string()
    .trim()
    .transform((value) => value.toUpperCase())
    .refine((value) => MPESA_CODE.test(value), { error: 'p2p.v.code' }),
})

export const disputeSchema = z.object({ reason: z.string().trim().max(P2P_TEXT_MAX, { error: 'p2p.v.tooLong' }) })

export const instructionsSchema = z.object({
  instructions: z.string().trim().min(1, { error: 'p2p.v.instructions' }).max(P2P_TEXT_MAX, { error: 'p2p.v.tooLong' }),
})

export const ratingSchema = z.object({
  stars: z.number({ error: 'p2p.v.stars' }).int({ error: 'p2p.v.stars' }).min(1, { error: 'p2p.v.stars' }).max(5, { error: 'p2p.v.stars' }),
  comment: z.string().trim().max(P2P_TEXT_MAX, { error: 'p2p.v.tooLong' }),
})

export const messageSchema = z.object({ body: z.string().trim().min(1).max(P2P_MESSAGE_MAX, { error: 'p2p.v.tooLong' }) })

export type TradeAction =
  | { kind: 'paid'; code: string }
  | { kind: 'release' }
  | { kind: 'cancel' }
  | { kind: 'dispute'; reason: string }
  | { kind: 'instructions'; instructions: string }

/** Runs one trade function as the caller; the server decides who may (and says why not). */
export async function runTradeAction(tradeId: string, action: TradeAction) {
  switch (action.kind) {
    case 'paid':
      return (await supabase.rpc('mark_trade_paid', { p_trade_id: tradeId, p_payment_reference: action.code }).throwOnError()).data
    case 'release':
      return (await supabase.rpc('release_trade', { p_trade_id: tradeId }).throwOnError()).data
    case 'cancel':
      return (await supabase.rpc('cancel_trade', { p_trade_id: tradeId }).throwOnError()).data
    case 'dispute':
      return (await supabase.rpc('dispute_trade', { p_trade_id: tradeId, p_reason: action.reason || null }).throwOnError()).data
    case 'instructions':
      return (
        await supabase.rpc('set_trade_payment_instructions', { p_trade_id: tradeId, p_instructions: action.instructions }).throwOnError()
      ).data
  }
}

export function useTradeAction(tradeId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (action: TradeAction) => runTradeAction(tradeId, action),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: p2pKeys.trade(tradeId) }),
        queryClient.invalidateQueries({ queryKey: p2pKeys.balances() }),
      ]),
  })
}

/** Sends a chat message on the trade as the caller. */
export async function sendTradeMessage(tradeId: string, senderId: string, body: string) {
  await supabase.from('p2p_trade_messages').insert({ trade_id: tradeId, sender_id: senderId, body }).throwOnError()
}

export function useSendTradeMessage(tradeId: string, senderId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: string) => sendTradeMessage(tradeId, senderId, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: p2pKeys.tradeMessages(tradeId) }),
  })
}

/** Rates the other party of a completed trade (once; the server sets who is rated). */
export async function rateTrade(tradeId: string, input: { stars: number; comment: string }) {
  await supabase
    .from('p2p_trade_ratings')
    .insert({ trade_id: tradeId, stars: input.stars, comment: input.comment || null })
    .throwOnError()
}

export function useRateTrade(tradeId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { stars: number; comment: string }) => rateTrade(tradeId, input),
    onSettled: () => queryClient.invalidateQueries({ queryKey: p2pKeys.tradeRatings(tradeId) }),
  })
}
