import { describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { formatMpesaPhone, mpesaPhoneSchema, normalizeMpesaPhone, requestStkPush, toStkPushError } = await import('../buy-nestcoins')
const { newerPurchase } = await import('../mpesa-checkout')

describe('normalizeMpesaPhone (the payments service rule)', () => {
  it.each([
    ['0712345678', '254712345678'],
    ['0712 345 678', '254712345678'],
    ['0712-345-678', '254712345678'],
    ['(0712) 345.678', '254712345678'],
    ['0110 123 456', '254110123456'],
    ['712345678', '254712345678'],
    ['112345678', '254112345678'],
    ['254708374149', '254708374149'],
    ['+254 708 374 149', '254708374149'],
    ['  +254708374149  ', '254708374149'],
  ])('accepts %j as %s', (input, expected) => {
    expect(normalizeMpesaPhone(input)).toBe(expected)
  })

  it.each([
    [''],
    ['   '],
    ['020 123 4567'], // a Nairobi landline
    ['0812345678'], // not 07/01
    ['+0712345678'], // '+' only before 254
    ['+1 202 555 0143'], // not Kenyan
    ['07123456789'], // eleven digits
    ['071234567'], // nine digits starting 0
    ['255712345678'], // Tanzania
    ['254812345678'],
    ['0712a345678'],
    ['07+12345678'],
    ['0'.repeat(65)],
  ])('refuses %j', (input) => {
    expect(normalizeMpesaPhone(input)).toBeNull()
  })
})

describe('formatMpesaPhone', () => {
  it('shows any accepted form the local way, and leaves anything else as typed', () => {
    expect(formatMpesaPhone('+254712345678')).toBe('0712 345 678')
    expect(formatMpesaPhone('254110123456')).toBe('0110 123 456')
    expect(formatMpesaPhone('712345678')).toBe('0712 345 678')
    expect(formatMpesaPhone('020 123 4567')).toBe('020 123 4567')
    expect(formatMpesaPhone(null)).toBe('')
  })
})

describe('mpesaPhoneSchema', () => {
  const messages = (phone: string) => {
    const result = mpesaPhoneSchema.safeParse({ phone })
    return result.success ? [] : result.error.issues.map((issue) => issue.message)
  }
  it('requires a number, then a Kenyan M-Pesa one', () => {
    expect(messages('')).toEqual(['wallet.pay.phoneRequired'])
    expect(messages('   ')).toEqual(['wallet.pay.phoneRequired'])
    expect(messages('020 123 4567')).toEqual(['wallet.pay.phoneInvalid'])
    expect(messages('0712 345 678')).toEqual([])
    expect(messages('+254 712 345 678')).toEqual([])
  })
})

/** A FunctionsHttpError as supabase-js builds it: the Response in `context`. */
function httpError(status: number, body: unknown) {
  return { name: 'FunctionsHttpError', message: 'Edge Function returned a non-2xx status code', context: new Response(JSON.stringify(body), { status }) }
}

describe('toStkPushError', () => {
  it.each([
    [401, { code: 401, message: 'Invalid JWT' }, 'unauthorized'],
    [401, { code: 401, message: 'Sign in to buy Nestcoins' }, 'unauthorized'],
    [400, { code: 'invalid_request', message: 'package_id must be the id of a Nestcoin package' }, 'invalid_request'],
    [400, { code: 'invalid_phone', message: 'Enter a valid M-Pesa phone number' }, 'invalid_phone'],
    [404, { code: 'package_not_found', message: 'Package not found' }, 'package_not_found'],
    [403, { code: 'account_suspended', message: 'Your account is suspended' }, 'account_suspended'],
    [429, { code: 'too_many_pending', message: 'You have payments waiting for confirmation.' }, 'too_many_pending'],
    [502, { code: 'mpesa_rejected', message: 'Bad Request - Invalid PhoneNumber', purchase_id: 'p-1', status: 'failed' }, 'mpesa_rejected'],
    [502, { code: 'mpesa_unavailable', message: 'M-Pesa is unavailable', purchase_id: 'p-2', status: 'failed' }, 'mpesa_unavailable'],
    [413, { code: 'payload_too_large', message: 'The request body is too large' }, 'payload_too_large'],
    [500, { code: 'internal_error', message: 'Something went wrong on our side. Try again.', request_id: 'req-9' }, 'internal_error'],
    [418, { code: 'teapot', message: '?' }, 'unknown'],
  ])('HTTP %i %j is %s', async (status, body, code) => {
    const error = await toStkPushError(httpError(status, body))
    expect(error.code).toBe(code)
    expect(error.status).toBe(status)
    expect(error.message).toBe(body.message)
  })

  it('keeps the purchase id of a failed push and the request id of an internal error', async () => {
    expect((await toStkPushError(httpError(502, { code: 'mpesa_rejected', message: 'x', purchase_id: 'p-1' }))).purchaseId).toBe('p-1')
    expect((await toStkPushError(httpError(500, { code: 'internal_error', message: 'x', request_id: 'req-9' }))).requestId).toBe('req-9')
  })

  it('reads a body that is not JSON by its status', async () => {
    const error = await toStkPushError({ name: 'FunctionsHttpError', message: 'm', context: new Response('<html>bad gateway</html>', { status: 502 }) })
    expect(error.code).toBe('mpesa_unavailable')
    expect((await toStkPushError({ name: 'FunctionsHttpError', message: 'm', context: new Response('', { status: 503 }) })).code).toBe('internal_error')
  })

  it('names a network failure', async () => {
    expect((await toStkPushError({ name: 'FunctionsFetchError', message: 'Failed to send a request to the Edge Function' })).code).toBe('network')
    expect((await toStkPushError({ name: 'FunctionsRelayError', message: 'Relay Error' })).code).toBe('network')
    expect((await toStkPushError(new TypeError('boom'))).code).toBe('unknown')
  })
})

describe('requestStkPush', () => {
  it('invokes mpesa-stk-push with the package and the normalised number', async () => {
    const invoke = vi.fn(async () => ({ data: { purchase_id: 'p-1', status: 'pending' }, error: null }))
    Object.assign(fake.client, { functions: { invoke } })
    await expect(requestStkPush({ packageId: 'pk', phone: '0708 374 149' })).resolves.toMatchObject({ purchase_id: 'p-1' })
    expect(invoke).toHaveBeenCalledWith('mpesa-stk-push', { body: { package_id: 'pk', phone: '254708374149' } })
  })

  it('refuses an invalid number without calling', async () => {
    const invoke = vi.fn()
    Object.assign(fake.client, { functions: { invoke } })
    await expect(requestStkPush({ packageId: 'pk', phone: '020 123 4567' })).rejects.toMatchObject({ code: 'invalid_phone' })
    expect(invoke).not.toHaveBeenCalled()
  })

  it('throws the coded error of a refused push', async () => {
    Object.assign(fake.client, { functions: { invoke: async () => ({ data: null, error: httpError(404, { code: 'package_not_found', message: 'Package not found' }) }) } })
    await expect(requestStkPush({ packageId: 'pk', phone: '0708374149' })).rejects.toMatchObject({ name: 'StkPushError', code: 'package_not_found' })
  })
})

describe('newerPurchase', () => {
  const row = (status: 'pending' | 'paid' | 'failed', updated: string) =>
    ({ id: 'p', status, updated_at: `2026-01-01T00:00:${updated}Z` }) as Parameters<typeof newerPurchase>[1]
  it('takes the later update, but a paid row is final', () => {
    expect(newerPurchase(null, row('pending', '01')).status).toBe('pending')
    expect(newerPurchase(row('pending', '01'), row('failed', '02')).status).toBe('failed')
    expect(newerPurchase(row('failed', '03'), row('pending', '02')).status).toBe('failed')
    expect(newerPurchase(row('paid', '02'), row('pending', '05')).status).toBe('paid')
    // An expired purchase that M-Pesa later confirms.
    expect(newerPurchase(row('failed', '05'), row('paid', '04')).status).toBe('paid')
  })
})
