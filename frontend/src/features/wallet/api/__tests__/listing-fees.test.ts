import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { getListingFees, parseListingReference } = await import('../get-listing-fees')

const id = 'a1b2c3d4-0000-4000-8000-000000000001'

describe('listing fee references', () => {
  it('reads <kind>:<listing id> and nothing else', () => {
    expect(parseListingReference(`property:${id}`)).toEqual({ kind: 'property', id })
    expect(parseListingReference(`Service:${id.toUpperCase()}`)).toEqual({ kind: 'service', id })
    expect(parseListingReference(`trade:${id}`)).toBeNull()
    expect(parseListingReference(`user:${id}`)).toBeNull()
    expect(parseListingReference('SGH7K2LQ9P')).toBeNull()
    expect(parseListingReference(`property:${id}:extra`)).toBeNull()
    expect(parseListingReference(null)).toBeNull()
  })
})

describe('getListingFees', () => {
  beforeEach(() => {
    fake.requests.length = 0
  })

  it('skips postings without a listing reference and asks no table when there is nothing to name', async () => {
    fake.respondWith((request: Request) =>
      request.table === 'wallet_history' ? { data: [{ kind: 'listing_fee', amount: -10, reference: 'odd', created_at: '2026-11-01T00:00:00Z' }] } : { data: [] },
    )
    expect(await getListingFees('u1')).toEqual([])
    expect(fake.requests.map((request) => request.table)).toEqual(['wallet_history'])
    expect(fake.requests[0].calls).toContainEqual(['in', 'kind', ['listing_fee', 'listing_refund']])
    expect(fake.requests[0].calls).toContainEqual(['eq', 'user_id', 'u1'])
  })

  it('orders the listings by their newest posting, an untitled listing keeping a null title', async () => {
    const other = 'a1b2c3d4-0000-4000-8000-000000000002'
    fake.respondWith((request: Request) => {
      if (request.table === 'wallet_history')
        return {
          data: [
            { kind: 'listing_fee', amount: -30, reference: `land:${other}`, created_at: '2026-11-03T00:00:00Z' },
            { kind: 'listing_fee', amount: -20, reference: `property:${id}`, created_at: '2026-11-04T00:00:00Z' },
            { kind: 'listing_fee', amount: -25, reference: `land:${other}`, created_at: '2026-11-05T00:00:00Z' },
          ],
        }
      if (request.table === 'properties') return { data: [{ id, title: null }] }
      if (request.table === 'lands') return { data: [{ id: other, title: 'Plot' }] }
      return { data: [] }
    })
    const fees = await getListingFees('u1')
    expect(fees.map((fee) => [fee.reference, fee.title, fee.exists, fee.paid, fee.payments, fee.lastAt])).toEqual([
      [`land:${other}`, 'Plot', true, 55, 2, '2026-11-05T00:00:00Z'],
      [`property:${id}`, null, true, 20, 1, '2026-11-04T00:00:00Z'],
    ])
  })
})
