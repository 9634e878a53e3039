import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import type { RealtimeChannel } from '@supabase/supabase-js'
import { useCallback, useEffect, useRef, useState } from 'react'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { requestStkPush, StkPushError, type StkPushResult } from './buy-nestcoins'
import { walletKeys } from './keys'

/** A Nestcoin purchase row as its buyer reads it (RLS: own rows). */
export type Purchase = Tables<'nestcoin_purchases'>
export type FailureCode = NonNullable<Purchase['failure_code']>

const purchaseColumns =
  'id, user_id, package_id, coins, amount_kes, phone, status, checkout_request_id, merchant_request_id, payment_reference, transfer_id, failure_reason, failure_code, resolved_via, result_code, result_desc, stk_sent_at, paid_at, failed_at, created_at, updated_at'

/** One purchase of the caller; null when RLS hides it or it does not exist. */
export async function getPurchase(id: string, signal?: AbortSignal): Promise<Purchase | null> {
  let request = supabase.from('nestcoin_purchases').select(purchaseColumns).eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return (data as Purchase | null) ?? null
}

/** The caller's profile phone number (E.164, as the profile stores it), to prefill the pay step. */
export async function getBuyerPhone(userId: string, signal?: AbortSignal): Promise<string | null> {
  let request = supabase.from('profiles').select('phone_number').eq('id', userId)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data?.phone_number ?? null
}

export function useBuyerPhone(userId: string | undefined) {
  return useQuery({
    queryKey: walletKeys.buyerPhone(userId ?? ''),
    queryFn: ({ signal }) => getBuyerPhone(userId ?? '', signal),
    enabled: Boolean(userId),
    staleTime: 60_000,
  })
}

/**
 * Which of two copies of a purchase row is the truth: a paid row is final
 * (money moved), otherwise the later update wins. One settlement sends two
 * or three UPDATE events, and a re-read may cross them.
 */
export function newerPurchase(current: Purchase | null, next: Purchase): Purchase {
  if (!current || current.id !== next.id) return next
  if (current.status === 'paid' && next.status !== 'paid') return current
  if (next.status === 'paid' && current.status !== 'paid') return next
  return Date.parse(next.updated_at) >= Date.parse(current.updated_at) ? next : current
}

function isPurchase(row: unknown): row is Purchase {
  const value = row as Partial<Purchase> | null
  return typeof value?.id === 'string' && typeof value.status === 'string' && typeof value.updated_at === 'string'
}

/** The buyer's balances and history after a purchase settled. */
export function invalidateAfterPurchase(queryClient: QueryClient, userId: string): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: walletKeys.balance(userId) }),
    queryClient.invalidateQueries({ queryKey: walletKeys.balances(userId) }),
    queryClient.invalidateQueries({ queryKey: walletKeys.histories(userId) }),
  ])
}

/** How long the app waits for Realtime to join before pushing anyway (the re-reads cover the gap). */
const SUBSCRIBE_TIMEOUT_MS = 10_000
/** How often a still-pending purchase is read again, in case a Realtime event was lost. */
export const PURCHASE_RECHECK_MS = 15_000

export type CheckoutPhase = 'idle' | 'sending' | 'waiting' | 'paid' | 'failed' | 'error'

export type CheckoutState = {
  phase: CheckoutPhase
  /** The purchase as last seen (from the push's answer, Realtime or a re-read). */
  purchase: Purchase | null
  /** The push's answer (customer message, normalised phone). */
  push: StkPushResult | null
  /** Why the push was not sent. */
  error: StkPushError | null
  /** When the prompt was sent (client clock), for the countdown. */
  sentAt: number | null
}

type Run = {
  /** Bumped by every start and stop: events and answers of an older run are dropped. */
  serial: number
  channel: RealtimeChannel | null
  /** The purchase as last seen; null until the push answered. */
  latest: Purchase | null
  /** Events of rows that arrived before the push's answer named its purchase. */
  seen: Map<string, Purchase>
  timer: ReturnType<typeof setInterval> | null
}

function newRun(serial: number): Run {
  return { serial, channel: null, latest: null, seen: new Map(), timer: null }
}

const idle: CheckoutState = { phase: 'idle', purchase: null, push: null, error: null, sentAt: null }

function phaseOf(purchase: Purchase): CheckoutPhase {
  return purchase.status === 'paid' ? 'paid' : purchase.status === 'failed' ? 'failed' : 'waiting'
}

/**
 * One M-Pesa checkout of the pay step. start() joins a Realtime channel on
 * the buyer's nestcoin_purchases rows first, then asks for the STK push, so
 * a callback faster than the answer is not missed (events of the purchase
 * that arrive before its id is known are kept); the row is also read once
 * the id is known, on every re-join, and every PURCHASE_RECHECK_MS while
 * pending. The channel stays open until reset() or unmount, because an
 * expired purchase can still turn paid. Settled as paid, the balances and
 * history are invalidated.
 */
export function useMpesaCheckout(userId: string | undefined) {
  const queryClient = useQueryClient()
  const [state, setState] = useState<CheckoutState>(idle)
  const run = useRef<Run>(newRun(0))

  const stop = useCallback(() => {
    const current = run.current
    if (current.timer) clearInterval(current.timer)
    if (current.channel) void supabase.removeChannel(current.channel)
    run.current = newRun(current.serial + 1)
  }, [])

  useEffect(() => stop, [stop])

  const apply = useCallback(
    (serial: number, row: Purchase) => {
      const current = run.current
      if (current.serial !== serial || !userId || !current.latest || current.latest.id !== row.id) return
      const before = current.latest
      const purchase = newerPurchase(before, row)
      if (purchase === before) return
      current.latest = purchase
      if (purchase.status === 'paid' && before.status !== 'paid') {
        if (current.timer) clearInterval(current.timer)
        current.timer = null
        void invalidateAfterPurchase(queryClient, userId)
      }
      setState((prev) => ({ ...prev, purchase, phase: phaseOf(purchase) }))
    },
    [queryClient, userId],
  )

  const reread = useCallback(
    async (serial: number) => {
      const id = run.current.latest?.id
      if (!id || run.current.serial !== serial) return
      try {
        const row = await getPurchase(id)
        if (row) apply(serial, row)
      } catch {
        // Realtime and the next re-read carry on; the pay step keeps waiting.
      }
    },
    [apply],
  )

  const start = useCallback(
    async ({ packageId, phone }: { packageId: string; phone: string }) => {
      if (!userId) return
      stop()
      const serial = run.current.serial
      const seen = run.current.seen
      setState({ ...idle, phase: 'sending' })

      const joined = new Promise<void>((resolve) => {
        const timeout = setTimeout(resolve, SUBSCRIBE_TIMEOUT_MS)
        let first = true
        run.current.channel = supabase
          .channel(`mpesa-purchases:${userId}:${serial}:${Math.random().toString(36).slice(2)}`)
          .on('postgres_changes', { event: '*', schema: 'public', table: 'nestcoin_purchases', filter: `user_id=eq.${userId}` }, (payload) => {
            if (run.current.serial !== serial || !isPurchase(payload.new)) return
            const row = payload.new
            if (run.current.latest?.id === row.id) apply(serial, row)
            else seen.set(row.id, newerPurchase(seen.get(row.id) ?? null, row))
          })
          .subscribe((status) => {
            if (status === 'SUBSCRIBED') {
              if (first) {
                first = false
                clearTimeout(timeout)
                resolve()
              } else void reread(serial)
            } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') {
              // Push anyway: the re-reads settle it without Realtime.
              clearTimeout(timeout)
              resolve()
            }
          })
      })
      await joined
      if (run.current.serial !== serial) return

      let push: StkPushResult
      try {
        push = await requestStkPush({ packageId, phone })
      } catch (error) {
        if (run.current.serial !== serial) return
        stop()
        const failure = error instanceof StkPushError ? error : new StkPushError('unknown', String(error))
        setState({ ...idle, phase: 'error', error: failure })
        return
      }
      if (run.current.serial !== serial) return
      const now = new Date().toISOString()
      const pending: Purchase = {
        id: push.purchase_id,
        user_id: userId,
        package_id: packageId,
        coins: push.coins,
        amount_kes: push.amount_kes,
        phone: push.phone,
        status: 'pending',
        checkout_request_id: push.checkout_request_id,
        merchant_request_id: push.merchant_request_id,
        payment_reference: null,
        transfer_id: null,
        failure_reason: null,
        failure_code: null,
        resolved_via: null,
        result_code: null,
        result_desc: null,
        stk_sent_at: now,
        paid_at: null,
        failed_at: null,
        created_at: now,
        // Older than any row the database sends, so those always win.
        updated_at: new Date(0).toISOString(),
      }
      run.current.latest = pending
      setState({ phase: 'waiting', purchase: pending, push, error: null, sentAt: Date.now() })
      const early = seen.get(push.purchase_id)
      seen.clear()
      if (early) apply(serial, early)
      void reread(serial)
      if (run.current.latest.status !== 'paid') run.current.timer = setInterval(() => void reread(serial), PURCHASE_RECHECK_MS)
    },
    [apply, reread, stop, userId],
  )

  const reset = useCallback(() => {
    stop()
    setState(idle)
  }, [stop])

  return { ...state, start, reset }
}
