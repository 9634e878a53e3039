import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { describe, expect, it, vi } from 'vitest'

import { staticFeeRates } from '@/lib/listing-fees'
import { fake } from '@/testing/supabase-mock'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { useFeeRates } = await import('../get-fee-rates')
const { getNestcoinBalance } = await import('../get-balance')
const { isInsufficientBalance, publishListing } = await import('../publish-listing')

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>
}

describe('wallet api', () => {
  it('falls back to the static fee table when listing_fee_rates fails', async () => {
    fake.respondWith(() => Promise.reject(new Error('offline')))
    const { result } = renderHook(() => useFeeRates(), { wrapper })
    await waitFor(() => expect(result.current.isError).toBe(true))
    expect(result.current.rates).toBe(staticFeeRates)
    expect(result.current.isFallback).toBe(true)
  })

  it('uses the server rates once they arrive', async () => {
    const server = [{ category: 'rent', label: 'Single Room', match_value: 'Single Room', min_price: null, max_price: null, per_day: 30 }]
    fake.respondWith(() => ({ data: server }))
    const { result } = renderHook(() => useFeeRates(), { wrapper })
    await waitFor(() => expect(result.current.isSuccess).toBe(true))
    expect(result.current.rates).toEqual(server)
  })

  it("reads the user's Nestcoin wallet", async () => {
    fake.respondWith(() => ({ data: { balance: 250 } }))
    expect(await getNestcoinBalance('u1')).toBe(250)
    const request = fake.requestsOf('wallets').at(-1)!
    expect(request.calls).toContainEqual(['eq', 'user_id', 'u1'])
    expect(request.calls).toContainEqual(['eq', 'currency', 'nestcoins'])
  })

  it('pays through publish_listing with an idempotency key', async () => {
    const result = { total: 84, per_day: 28, days: 3, is_active: false, payment_status: 'pending', balance: 16 }
    fake.client.rpc.mockReturnValue({ throwOnError: () => Promise.resolve({ data: result, error: null }) })
    await expect(publishListing({ kind: 'property', listingId: 'p1', days: 3, idempotencyKey: 'k1' })).resolves.toEqual(result)
    expect(fake.client.rpc).toHaveBeenCalledWith('publish_listing', {
      p_kind: 'property',
      p_listing_id: 'p1',
      p_days: 3,
      p_idempotency_key: 'k1',
    })
    expect(isInsufficientBalance(new Error('Insufficient Nestcoins balance'))).toBe(true)
    expect(isInsufficientBalance(new Error('Listing not found'))).toBe(false)
  })
})
