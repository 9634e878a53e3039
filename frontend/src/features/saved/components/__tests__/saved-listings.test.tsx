import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

import { groupSaved, type SavedEntry } from '../../api/get-saved-listings'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const propertyId = '0e5a0000-0000-4000-8000-0000000000c1'
const landId = '0e5a0000-0000-4000-8000-0000000000c2'
const goneProductId = '0e5a0000-0000-4000-8000-0000000000c3'

const property = { id: propertyId, title: 'Maisonette in Karen', location: 'Karen, Nairobi', price: 150_000, purpose: 'Rent', images: [] }
const land = { id: landId, title: 'Eighth acre in Ruiru', location: 'Ruiru, Kiambu', price: 2_500_000, purpose: 'Sale', images: [] }

const method = (request: Request, name: string) => request.calls.find(([called]) => called === name)

/**
 * Saved rows of the user, and the listings still visible (the product is
 * not). A delete waits for `deleted` when given, as a slow server would.
 */
function answer(rows: { listing_kind: string; listing_id: string }[], deleted?: Promise<void>) {
  fake.respondWith(async (request) => {
    if (request.table === 'saved_listings') {
      if (method(request, 'delete')) {
        const id = request.calls.find(([name, column]) => name === 'eq' && column === 'listing_id')?.[2]
        await deleted
        rows = rows.filter((row) => row.listing_id !== id)
        return { data: null }
      }
      return { data: rows.map((row, i) => ({ ...row, created_at: `2026-11-0${9 - i}T10:00:00Z` })) }
    }
    if (request.table === 'properties') return { data: [property] }
    if (request.table === 'lands') return { data: [land] }
    return { data: [], count: 0 }
  })
}

describe('groupSaved', () => {
  it('groups by kind in the app order and leaves empty kinds out', () => {
    const entry = (kind: SavedEntry['kind'], id: string): SavedEntry => ({ kind, id, savedAt: '', listing: null })
    const groups = groupSaved([entry('service', 's'), entry('property', 'p1'), entry('land', 'l'), entry('property', 'p2')])
    expect(groups.map((group) => [group.kind, group.entries.map((e) => e.id)])).toEqual([
      ['property', ['p1', 'p2']],
      ['land', ['l']],
      ['service', ['s']],
    ])
  })
})

describe('/saved', () => {
  beforeEach(() => {
    fake.requests.length = 0
  })

  it('sends a visitor to sign in first', async () => {
    const { router } = await renderApp('/saved')
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/saved' })
    expect(visibleToasts()[0]).toHaveTextContent('Please log in to continue with this action')
  })

  it('offers ways to browse when nothing is saved', async () => {
    answer([])
    await renderApp('/saved', { session })
    expect(await screen.findByRole('heading', { name: "You haven't saved any listings yet" })).toBeInTheDocument()
    const main = within(screen.getByRole('main'))
    expect(main.getByRole('link', { name: 'Properties' })).toHaveAttribute('href', '/properties')
    expect(main.getByRole('link', { name: 'Marketplace' })).toHaveAttribute('href', '/marketplace')
    expect(main.getByRole('link', { name: 'Lands' })).toHaveAttribute('href', '/lands')
    expect(main.getByRole('link', { name: 'Services' })).toHaveAttribute('href', '/services')
  })

  it('groups the saved listings by kind, reads each kind once by id, and marks the ones no longer visible', async () => {
    answer([
      { listing_kind: 'land', listing_id: landId },
      { listing_kind: 'product', listing_id: goneProductId },
      { listing_kind: 'property', listing_id: propertyId },
    ])
    await renderApp('/saved', { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'Saved Listings' })).toBeInTheDocument()
    const main = within(screen.getByRole('main'))
    const properties = await main.findByRole('region', { name: 'Properties 1 saved' })
    expect(within(properties).getByRole('link', { name: 'Maisonette in Karen' })).toHaveAttribute('href', `/properties/${propertyId}`)
    const lands = main.getByRole('region', { name: 'Land 1 saved' })
    expect(within(lands).getByRole('link', { name: 'Eighth acre in Ruiru' })).toHaveAttribute('href', `/lands/${landId}`)
    const products = main.getByRole('region', { name: 'Marketplace 1 saved' })
    expect(within(products).getByText('No longer available')).toBeInTheDocument()
    // The sections come in the app's order, whatever order things were saved in.
    expect(main.getAllByRole('region').map((region) => region.getAttribute('aria-labelledby'))).toEqual(['saved-property', 'saved-product', 'saved-land'])

    const read = (table: string) => fake.requestsOf(table)[0]
    expect(read('saved_listings').calls).toContainEqual(['eq', 'user_id', session.user.id])
    expect(read('properties').calls).toContainEqual(['in', 'id', [propertyId]])
    expect(read('products').calls).toContainEqual(['in', 'id', [goneProductId]])
    expect(read('lands').calls).toContainEqual(['in', 'id', [landId]])
    expect(fake.requestsOf('service_providers')).toHaveLength(0)
    for (const table of ['properties', 'products', 'lands']) {
      const [, columns] = method(read(table), 'select')!
      expect(columns).not.toBe('*')
      expect(String(columns)).not.toMatch(/\bcontact\b/)
    }
  })

  it('removes a listing at once, before the server answers', async () => {
    let answerDelete!: () => void
    answer(
      [
        { listing_kind: 'property', listing_id: propertyId },
        { listing_kind: 'product', listing_id: goneProductId },
      ],
      new Promise((resolve) => (answerDelete = resolve)),
    )
    const { user } = await renderApp('/saved', { session })
    const main = within(screen.getByRole('main'))
    await user.click(await main.findByRole('button', { name: 'Remove Maisonette in Karen from saved listings' }))
    await waitFor(() => expect(main.queryByRole('region', { name: /^Properties/ })).not.toBeInTheDocument())
    answerDelete()
    const remove = fake.requestsOf('saved_listings').find((request) => method(request, 'delete'))!
    expect(remove.calls).toContainEqual(['eq', 'listing_id', propertyId])
    expect(remove.calls).toContainEqual(['eq', 'listing_kind', 'property'])

    // A listing no longer available is removed the same way.
    await user.click(main.getByRole('button', { name: 'Remove unavailable listing from saved listings' }))
    expect(await screen.findByRole('heading', { name: "You haven't saved any listings yet" })).toBeInTheDocument()
  })

  it('shows a failure with Try Again', async () => {
    fake.respondWith((request) => (request.table === 'saved_listings' ? Promise.reject(new Error('boom')) : { data: [], count: 0 }))
    await renderApp('/saved', { session })
    expect(await screen.findByText('Failed to load your saved listings')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument()
  })
})
