import { z } from 'zod'

import { supabase } from '@/lib/supabase'

/**
 * The Kenyan mobile numbers M-Pesa can prompt, the payments service's rule
 * (payments/internal/phone): 07…/01… (ten digits), 2547…/2541… (twelve,
 * optionally behind '+'), or the bare nine digits 7…/1…, with spaces,
 * dashes, dots and parentheses anywhere. Returns 2547XXXXXXXX / 2541XXXXXXXX,
 * or null for anything else.
 */
export function normalizeMpesaPhone(value: string): string | null {
  const text = value.trim()
  if (text.length === 0 || text.length > 64 || !/^\+?[\d\s().-]+$/.test(text)) return null
  const plus = text.startsWith('+')
  const digits = text.replace(/\D/g, '')
  let local: string
  if (digits.length === 12 && digits.startsWith('254')) local = digits.slice(3)
  else if (plus) return null
  else if (digits.length === 10 && digits.startsWith('0')) local = digits.slice(1)
  else if (digits.length === 9) local = digits
  else return null
  if (local[0] !== '7' && local[0] !== '1') return null
  return `254${local}`
}

/**
 * How the pay step shows an M-Pesa number: the local form Kenyans write,
 * "0712 345 678". Anything that is not an M-Pesa number comes back as typed.
 */
export function formatMpesaPhone(value: string | null | undefined): string {
  if (!value) return ''
  const msisdn = normalizeMpesaPhone(value)
  if (!msisdn) return value
  const local = `0${msisdn.slice(3)}`
  return `${local.slice(0, 4)} ${local.slice(4, 7)} ${local.slice(7)}`
}

/**
 * The pay step's form: the M-Pesa number to prompt. Messages are wallet
 * catalogue keys.
 */
export const mpesaPhoneSchema = z.object({
  phone: z
    .string()
    .trim()
    .min(1, { error: 'wallet.pay.phoneRequired', abort: true })
    .refine((value) => normalizeMpesaPhone(value) !== null, { error: 'wallet.pay.phoneInvalid' }),
})
export type MpesaPhoneInput = z.input<typeof mpesaPhoneSchema>

/** What mpesa-stk-push answers when Daraja accepted the push (HTTP 200). */
export type StkPushResult = {
  purchase_id: string
  checkout_request_id: string
  merchant_request_id: string
  customer_message: string
  status: 'pending'
  amount_kes: number
  coins: number
  phone: string
}

/** The error codes of mpesa-stk-push the app names (README, "Payments (M-Pesa)"). */
export const stkPushErrorCodes = [
  'unauthorized',
  'invalid_request',
  'invalid_phone',
  'package_not_found',
  'account_suspended',
  'too_many_pending',
  'mpesa_rejected',
  'mpesa_unavailable',
  'payload_too_large',
  'internal_error',
  'network',
  'unknown',
] as const
export type StkPushErrorCode = (typeof stkPushErrorCodes)[number]

/** Why the push was not sent: the function's code, its message and what it named. */
export class StkPushError extends Error {
  readonly code: StkPushErrorCode
  readonly status: number | null
  readonly purchaseId: string | null
  readonly requestId: string | null

  constructor(code: StkPushErrorCode, message: string, extra: { status?: number | null; purchaseId?: string | null; requestId?: string | null } = {}) {
    super(message)
    this.name = 'StkPushError'
    this.code = code
    this.status = extra.status ?? null
    this.purchaseId = extra.purchaseId ?? null
    this.requestId = extra.requestId ?? null
  }
}

type ErrorBody = { code?: unknown; message?: unknown; purchase_id?: unknown; request_id?: unknown }

const knownCodes = new Set<string>(stkPushErrorCodes)

/** Reads a functions.invoke error into an StkPushError (FunctionsHttpError's body is {code, message}). */
export async function toStkPushError(error: unknown): Promise<StkPushError> {
  const failure = error as { name?: string; message?: string; context?: { status?: number; json?: () => Promise<unknown> } } | null
  if (failure?.name === 'FunctionsHttpError' && typeof failure.context?.json === 'function') {
    const status = typeof failure.context.status === 'number' ? failure.context.status : null
    let body: ErrorBody = {}
    try {
      body = ((await failure.context.json()) ?? {}) as ErrorBody
    } catch {
      // Not JSON (a proxy's page): the status still says what happened.
    }
    const message = typeof body.message === 'string' ? body.message : (failure.message ?? '')
    const extra = {
      status,
      purchaseId: typeof body.purchase_id === 'string' ? body.purchase_id : null,
      requestId: typeof body.request_id === 'string' ? body.request_id : null,
    }
    // The relay's JWT checks answer {code: 401} (a number), as Supabase's does.
    if (status === 401 || body.code === 401) return new StkPushError('unauthorized', message, extra)
    if (typeof body.code === 'string' && knownCodes.has(body.code)) return new StkPushError(body.code as StkPushErrorCode, message, extra)
    if (status === 413) return new StkPushError('payload_too_large', message, extra)
    if (status !== null && status >= 500) return new StkPushError(status === 502 ? 'mpesa_unavailable' : 'internal_error', message, extra)
    return new StkPushError('unknown', message, extra)
  }
  if (failure?.name === 'FunctionsFetchError' || failure?.name === 'FunctionsRelayError') {
    return new StkPushError('network', failure.message ?? '')
  }
  return new StkPushError('unknown', failure?.message ?? String(error))
}

/**
 * Asks the payments service for an M-Pesa STK push for `packageId` to
 * `phone` (normalised here; the service checks it again). The signed-in
 * user's JWT goes with it; throws StkPushError.
 */
export async function requestStkPush({ packageId, phone }: { packageId: string; phone: string }): Promise<StkPushResult> {
  const msisdn = normalizeMpesaPhone(phone)
  if (!msisdn) throw new StkPushError('invalid_phone', 'Enter a valid M-Pesa phone number')
  let answer: Awaited<ReturnType<typeof supabase.functions.invoke<StkPushResult>>>
  try {
    answer = await supabase.functions.invoke<StkPushResult>('mpesa-stk-push', { body: { package_id: packageId, phone: msisdn } })
  } catch (error) {
    throw await toStkPushError(error)
  }
  if (answer.error) throw await toStkPushError(answer.error)
  if (!answer.data?.purchase_id) throw new StkPushError('unknown', 'The payment service gave no purchase id')
  return answer.data
}
