import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { P2P_TEXT_MAX } from '@/config/p2p'
import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

/**
 * The trade dialog (spec §5): a whole amount between the offer's limits and
 * one of its payment methods; a taker who sells (a buy offer) may say where
 * to be paid. The remaining amount is the server's to check ('Only N left').
 */
export function tradeSchema(limits: { min: number; max: number }) {
  const amountError = 'p2p.v.tradeAmount'
  return z.object({
    amount: z
      .number({ error: amountError })
      .int({ error: 'p2p.v.whole' })
      .min(limits.min, { error: amountError })
      .max(limits.max, { error: amountError }),
    payment_method: z.string().min(1, { error: 'p2p.v.method' }),
    payment_instructions: z.string().trim().max(P2P_TEXT_MAX, { error: 'p2p.v.tooLong' }),
  })
}

export type TradeInput = z.infer<ReturnType<typeof tradeSchema>>

export type OpenTradeVars = TradeInput & { offerId: string; expectedRate: number; idempotencyKey: string }

/** Opens a trade at the rate the taker saw; the seller's coins go to escrow (open_p2p_trade). */
export async function openTrade(vars: OpenTradeVars) {
  const { data } = await supabase
    .rpc('open_p2p_trade', {
      p_offer_id: vars.offerId,
      p_amount: vars.amount,
      p_expected_rate: vars.expectedRate,
      p_payment_method: vars.payment_method,
      p_payment_instructions: vars.payment_instructions || null,
      p_idempotency_key: vars.idempotencyKey,
    })
    .throwOnError()
  return data
}

export function useOpenTrade() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: openTrade,
    onSettled: () => queryClient.invalidateQueries({ queryKey: p2pKeys.all }),
  })
}
