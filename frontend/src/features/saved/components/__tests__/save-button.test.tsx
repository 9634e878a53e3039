import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const property = (n: number) => ({
  id: `0e5a0000-0000-4000-8000-0000000000b${n}`,
  user_id: '0e5a0000-0000-4000-8000-000000000003',
  title: `Bedsitter ${n} in Roysambu`,
  type: 'Bedsitter',
  purpose: 'Rent',
  price: 12_000,
  price_unit: 'month',
  location: 'Roysambu, Nairobi',
  description: 'Near Thika Road.',
  deposit: null,
  images: [],
  is_active: true,
  payment_status: 'paid',
  created_at: '2026-11-01T08:00:00Z',
})
const listings = [property(1), property(2), property(3)]

const method = (request: Request, name: string) => request.calls.find(([called]) => called === name)

/**
 * The /properties grid with `savedIds` already saved; saved_listings writes
 * answer through `write` (default: success).
 */
function answer(savedIds: string[], write: (request: Request) => unknown = () => ({ data: null })) {
  fake.respondWith((request) => {
    if (request.table === 'properties') return { data: listings, count: listings.length }
    if (request.table === 'saved_listings') {
      if (method(request, 'insert') || method(request, 'delete')) return write(request) as { data: unknown }
      return { data: savedIds.map((listing_id) => ({ listing_id })) }
    }
    return { data: [], count: 0 }
  })
}

const heart = (n: number) => screen.findByRole('button', { name: `Save Bedsitter ${n} in Roysambu` })
const savedWrites = () => fake.requestsOf('saved_listings').filter((request) => method(request, 'insert') || method(request, 'delete'))

describe('the save heart', () => {
  beforeEach(() => {
    fake.requests.length = 0
  })

  it("sends a visitor to /login with the guard's message, remembering the page", async () => {
    answer([])
    const { user, router } = await renderApp('/properties?type=Bedsitter')
    await user.click(await heart(1))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/properties?type=Bedsitter' })
    expect(visibleToasts()[0]).toHaveTextContent('Please log in to continue with this action')
    expect(visibleToasts()[0]).toHaveAttribute('data-variant', 'info')
    expect(fake.requestsOf('saved_listings')).toHaveLength(0)
  })

  it("shows the user's saved listings from one query for the whole grid", async () => {
    answer([property(2).id])
    await renderApp('/properties', { session })
    await waitFor(async () => expect(await heart(2)).toHaveAttribute('aria-pressed', 'true'))
    expect(await heart(1)).toHaveAttribute('aria-pressed', 'false')
    expect(await heart(3)).toHaveAttribute('aria-pressed', 'false')
    const reads = fake.requestsOf('saved_listings')
    expect(reads).toHaveLength(1)
    expect(reads[0].calls).toContainEqual(['eq', 'listing_kind', 'property'])
    expect(reads[0].calls).toContainEqual(['eq', 'user_id', session.user.id])
  })

  it('saves at once (before the server answers) and sends only kind and id', async () => {
    let finish!: () => void
    answer([], () => new Promise((resolve) => (finish = () => resolve({ data: null }))))
    const { user } = await renderApp('/properties', { session })
    await waitFor(async () => expect(await heart(1)).toBeEnabled())
    await user.click(await heart(1))
    expect(await heart(1)).toHaveAttribute('aria-pressed', 'true')
    const [insert] = savedWrites()
    expect(method(insert, 'insert')).toEqual(['insert', { listing_kind: 'property', listing_id: property(1).id }])
    expect(method(insert, 'select')).toBeUndefined()
    finish()
    await waitFor(async () => expect(await heart(1)).toBeEnabled())
  })

  it('unsaves a saved listing', async () => {
    let saved = [property(2).id]
    fake.respondWith((request) => {
      if (request.table === 'properties') return { data: listings, count: listings.length }
      if (request.table !== 'saved_listings') return { data: [], count: 0 }
      if (method(request, 'delete')) {
        saved = []
        return { data: null }
      }
      return { data: saved.map((listing_id) => ({ listing_id })) }
    })
    const { user } = await renderApp('/properties', { session })
    await waitFor(async () => expect(await heart(2)).toHaveAttribute('aria-pressed', 'true'))
    await user.click(await heart(2))
    await waitFor(async () => expect(await heart(2)).toHaveAttribute('aria-pressed', 'false'))
    const [remove] = savedWrites()
    expect(remove.calls).toContainEqual(['delete'])
    expect(remove.calls).toContainEqual(['eq', 'listing_kind', 'property'])
    expect(remove.calls).toContainEqual(['eq', 'listing_id', property(2).id])
    expect(remove.calls).toContainEqual(['eq', 'user_id', session.user.id])
  })

  it('rolls back and says why when the listing can no longer be saved', async () => {
    answer([], () => Promise.reject(Object.assign(new Error('new row violates row-level security policy'), { code: '42501' })))
    const { user } = await renderApp('/properties', { session })
    await waitFor(async () => expect(await heart(3)).toBeEnabled())
    await user.click(await heart(3))
    await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('This listing is no longer available'))
    await waitFor(async () => expect(await heart(3)).toHaveAttribute('aria-pressed', 'false'))
  })

  it('treats saving an already saved listing as saved', async () => {
    // Saved meanwhile in another tab: the insert meets the row, the re-read finds it.
    const saved: string[] = []
    fake.respondWith((request) => {
      if (request.table === 'properties') return { data: listings, count: listings.length }
      if (request.table !== 'saved_listings') return { data: [], count: 0 }
      if (method(request, 'insert')) {
        saved.push(property(1).id)
        return Promise.reject(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))
      }
      return { data: saved.map((listing_id) => ({ listing_id })) }
    })
    const { user } = await renderApp('/properties', { session })
    await waitFor(async () => expect(await heart(1)).toBeEnabled())
    await user.click(await heart(1))
    await waitFor(() => expect(savedWrites()).toHaveLength(1))
    await waitFor(async () => expect(await heart(1)).toBeEnabled())
    expect(await heart(1)).toHaveAttribute('aria-pressed', 'true')
    expect(visibleToasts()).toHaveLength(0)
  })

  it('is on the detail page too, as a Save button', async () => {
    fake.respondWith((request) => {
      if (request.table === 'saved_listings') return { data: [{ listing_id: property(1).id }] }
      if (request.table === 'properties') return { data: method(request, 'maybeSingle') ? property(1) : [] }
      return { data: [], count: 0 }
    })
    fake.client.rpc.mockImplementation(() => {
      const request = { abortSignal: () => request, throwOnError: () => Promise.resolve({ data: null, error: null }) }
      return request
    })
    await renderApp(`/properties/${property(1).id}`, { session })
    const save = await screen.findByRole('button', { name: 'Save Bedsitter 1 in Roysambu' })
    expect(save).toHaveTextContent('Save')
    await waitFor(() => expect(save).toHaveAttribute('aria-pressed', 'true'))
  })

  it('is not on the My pages', async () => {
    fake.respondWith((request) => (request.table === 'properties' ? { data: [{ ...property(1), contact: '0712345678' }] } : { data: [], count: 0 }))
    await renderApp('/my-properties', { session })
    const main = within(screen.getByRole('main'))
    expect(await main.findByText('Bedsitter 1 in Roysambu')).toBeInTheDocument()
    expect(main.queryByRole('button', { name: /^Save / })).not.toBeInTheDocument()
  })
})
