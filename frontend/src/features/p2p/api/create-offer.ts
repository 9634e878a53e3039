import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import {
  AUTO_CANCEL_DURATIONS,
  OFFER_AMOUNT_MAX,
  OFFER_AMOUNT_MIN,
  OFFER_LIMIT_MIN,
  OFFER_RATE_MIN,
  P2P_ACTIONS,
  P2P_CURRENCIES,
  PAYMENT_METHODS,
} from '@/config/p2p'
import { supabase } from '@/lib/supabase'

import { p2pKeys } from './keys'

const durations = AUTO_CANCEL_DURATIONS.map((d) => d.value) as [string, ...string[]]

/**
 * The offer form (spec §5). Messages are catalogue keys, translated where
 * shown; the server repeats every rule with the same English wording.
 */
export const createOfferSchema = z
  .object({
    action: z.enum(P2P_ACTIONS),
    currency: z.enum(P2P_CURRENCIES),
    amount: z
      .number({ error: 'p2p.v.amountMin' })
      .int({ error: 'p2p.v.whole' })
      .min(OFFER_AMOUNT_MIN, { error: 'p2p.v.amountMin' })
      .max(OFFER_AMOUNT_MAX, { error: 'p2p.v.amountMax' }),
    rate_per_unit: z.number({ error: 'p2p.v.rate' }).min(OFFER_RATE_MIN, { error: 'p2p.v.rate' }).max(9_999_999_999, { error: 'p2p.v.tooLong' }),
    min_limit: z.number({ error: 'p2p.v.minLimit' }).int({ error: 'p2p.v.whole' }).min(OFFER_LIMIT_MIN, { error: 'p2p.v.minLimit' }),
    max_limit: z.number({ error: 'p2p.v.maxLimit' }).int({ error: 'p2p.v.whole' }).min(OFFER_LIMIT_MIN, { error: 'p2p.v.maxLimit' }),
    payment_methods: z.array(z.enum(PAYMENT_METHODS)).min(1, { error: 'p2p.v.methods' }),
    auto_cancel_duration: z.enum(durations),
  })
  .refine((offer) => offer.min_limit <= offer.max_limit, { error: 'p2p.v.limitsOrder', path: ['min_limit'] })

export type CreateOfferInput = z.infer<typeof createOfferSchema>

const durationMs: Record<string, number> = {
  '1 hour': 3_600_000,
  '6 hours': 6 * 3_600_000,
  '12 hours': 12 * 3_600_000,
  '1 day': 24 * 3_600_000,
  '3 days': 72 * 3_600_000,
  '7 days': 168 * 3_600_000,
}

/** Inserts the caller's offer (spec §7); the server computes expires_at itself. */
export async function createOffer(userId: string, input: CreateOfferInput) {
  const expiresAt = new Date(Date.now() + (durationMs[input.auto_cancel_duration] ?? durationMs['1 day'])).toISOString()
  const { data } = await supabase
    .from('p2p_offers')
    .insert({ user_id: userId, ...input, rate_per_unit: Math.round(input.rate_per_unit * 100) / 100, expires_at: expiresAt })
    .select('id')
    .single()
    .throwOnError()
  return data
}

export function useCreateOffer(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: CreateOfferInput) => createOffer(userId, input),
    onSettled: () => queryClient.invalidateQueries({ queryKey: p2pKeys.boards() }),
  })
}

/** The owner withdraws an offer's unfilled rest (cancel_p2p_offer); its open trades carry on. */
export async function cancelOffer(offerId: string) {
  const { data } = await supabase.rpc('cancel_p2p_offer', { p_offer_id: offerId }).throwOnError()
  return data
}

export function useCancelOffer() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: cancelOffer,
    onSettled: () => queryClient.invalidateQueries({ queryKey: p2pKeys.boards() }),
  })
}
