import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

import { searchOverview, type KindResults } from '../../api/search-listings'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const property = (n: number) => ({
  id: `00000000-0000-4000-8000-1000000000${String(n).padStart(2, '0')}`,
  title: `Modern Two Bedroom in Kilimani ${n}`,
  location: 'Kilimani, Nairobi',
  price: 45000,
  purpose: 'Rent',
  images: [],
})
const land = {
  id: '00000000-0000-4000-8000-300000000001',
  title: 'Quarter acre in Kilimani',
  location: 'Kilimani, Nairobi',
  price: 9000000,
  purpose: 'Sale',
  images: [],
}

/** Answers each table's search with these rows and counts; others find nothing. */
function answer(results: Partial<Record<'properties' | 'products' | 'lands' | 'service_providers', { data: unknown[]; count: number }>>) {
  fake.respondWith((request) => results[request.table as keyof typeof results] ?? { data: [], count: 0 })
}

describe('searchOverview', () => {
  const ok = (count: number) => ({ status: 'success' as const, results: { items: [], count } satisfies KindResults })
  const pending = { status: 'pending' as const, results: undefined }
  const failed = { status: 'error' as const, results: undefined }

  it('is loading until some kind has results or all have answered', () => {
    expect(searchOverview([pending, pending, pending, pending])).toBe('loading')
    expect(searchOverview([ok(0), pending, ok(0), ok(0)])).toBe('loading')
    expect(searchOverview([ok(0), pending, ok(3), ok(0)])).toBe('results')
  })

  it('never says "no results" when a kind failed', () => {
    expect(searchOverview([ok(0), failed, ok(0), ok(0)])).toBe('error')
    expect(searchOverview([failed, failed, failed, failed])).toBe('error')
    expect(searchOverview([failed, ok(2), ok(0), ok(0)])).toBe('results')
  })

  it('is empty only when every kind answered with none', () => {
    expect(searchOverview([ok(0), ok(0), ok(0), ok(0)])).toBe('empty')
  })
})

describe('/search', () => {
  beforeEach(() => {
    fake.requests.length = 0
  })

  it('asks for a search and sends nothing without one', async () => {
    await renderApp('/search')
    expect(await screen.findByRole('heading', { level: 1, name: 'Search' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: 'What are you looking for?' })).toBeInTheDocument()
    expect(fake.requests).toHaveLength(0)
  })

  it('puts the query in the URL and shows the results grouped by kind, with counts and See all', async () => {
    answer({
      properties: { data: [1, 2, 3, 4, 5, 6].map(property), count: 14 },
      lands: { data: [land], count: 1 },
    })
    const { user, router } = await renderApp('/search')
    await user.type(screen.getByRole('searchbox', { name: 'Search listings' }), '  Kilimani  ')
    await user.click(screen.getByRole('button', { name: 'Search' }))
    await waitFor(() => expect(router.state.location.search).toBe('?q=Kilimani'))

    const properties = await screen.findByRole('region', { name: /^Properties/ })
    expect(within(properties).getByText('14 results')).toBeInTheDocument()
    expect(within(properties).getAllByRole('listitem')).toHaveLength(6)
    expect(within(properties).getByRole('link', { name: 'Modern Two Bedroom in Kilimani 1' })).toHaveAttribute('href', `/properties/${property(1).id}`)
    // Properties, Marketplace and Lands need sign-in from the navigation: a visitor's See all goes to /login.
    expect(within(properties).getByRole('link', { name: 'See all Properties' })).toHaveAttribute('href', '/login')

    const lands = screen.getByRole('region', { name: /^Land/ })
    expect(within(lands).getByText('1 result')).toBeInTheDocument()
    expect(within(lands).getByRole('link', { name: 'Quarter acre in Kilimani' })).toHaveAttribute('href', `/lands/${land.id}`)
    // Kinds without matches are left out.
    const main = within(screen.getByRole('main'))
    expect(main.queryByRole('region', { name: /^Marketplace/ })).not.toBeInTheDocument()
    expect(main.queryByRole('region', { name: /^Services/ })).not.toBeInTheDocument()

    // One request per kind: active rows only, the kind's columns, six at most, with an estimated count.
    const byTable = Object.fromEntries(fake.requests.map((request) => [request.table, request.calls]))
    expect(Object.keys(byTable).sort()).toEqual(['lands', 'products', 'properties', 'service_providers'])
    expect(byTable.properties).toContainEqual(['eq', 'is_active', true])
    // The words as prefixes on each table's full-text vector, as the kinds' own screens search.
    for (const calls of Object.values(byTable)) {
      expect(calls).toContainEqual(['textSearch', 'search', 'kilimani:*', { config: 'english' }])
    }
    expect(byTable.properties).toContainEqual(['limit', 6])
    expect(byTable.lands).toContainEqual(['order', 'createdAt', { ascending: false }])
    for (const calls of Object.values(byTable)) {
      const [, columns, options] = calls.find(([method]) => method === 'select')!
      expect(columns).not.toBe('*')
      expect(String(columns)).not.toMatch(/\b(contact|phone)\b/)
      expect(options).toEqual({ count: 'estimated' })
    }
  })

  it("settles each kind's estimated count from the rows it got", async () => {
    // count=estimated is the planner's guess above max-rows: a short page
    // is all there is, and a full page proves at least its own rows.
    answer({
      properties: { data: [1, 2, 3, 4, 5, 6].map(property), count: 2 },
      lands: { data: [land], count: 5000 },
    })
    await renderApp('/search?q=Kilimani')
    const properties = await screen.findByRole('region', { name: /^Properties/ })
    expect(within(properties).getByText('6 results')).toBeInTheDocument()
    const lands = screen.getByRole('region', { name: /^Land/ })
    expect(within(lands).getByText('1 result')).toBeInTheDocument()
  })

  it('keeps an estimate above a full first page', async () => {
    answer({ properties: { data: [1, 2, 3, 4, 5, 6].map(property), count: 48210 } })
    await renderApp('/search?q=Nairobi')
    const properties = await screen.findByRole('region', { name: /^Properties/ })
    expect(within(properties).getByText('48210 results')).toBeInTheDocument()
  })

  it('links See all to the kind screen with its own query parameter for a signed-in user', async () => {
    answer({
      properties: { data: [property(1)], count: 1 },
      products: { data: [{ id: 'p1', name: 'Sofa from Kilimani', location: null, price: 12000, category: 'Furniture', images: [] }], count: 1 },
      lands: { data: [land], count: 1 },
      service_providers: { data: [{ id: 's1', name: 'Kilimani Movers', location: 'Kilimani', category: 'Moving', profileimage: null }], count: 1 },
    })
    await renderApp('/search?q=Kilimani%2C%20Nairobi', { session: fakeSession() })
    const seeAll = async (kind: string) => (await screen.findByRole('link', { name: `See all ${kind}` })).getAttribute('href')
    expect(await seeAll('Properties')).toBe('/properties?query=Kilimani%2C%20Nairobi')
    expect(await seeAll('Marketplace')).toBe('/marketplace?query=Kilimani%2C%20Nairobi')
    expect(await seeAll('Land')).toBe('/lands?search=Kilimani%2C%20Nairobi')
    expect(await seeAll('Services')).toBe('/services?search=Kilimani%2C%20Nairobi')
    expect(screen.getByRole('searchbox', { name: 'Search listings' })).toHaveValue('Kilimani, Nairobi')
    // Punctuation only separates words.
    expect(fake.requestsOf('properties').at(-1)!.calls).toContainEqual(['textSearch', 'search', 'kilimani:* & nairobi:*', { config: 'english' }])
  })

  it('says so when nothing matches', async () => {
    answer({})
    await renderApp('/search?q=zzqx')
    expect(await screen.findByRole('heading', { name: 'No results for "zzqx"' })).toBeInTheDocument()
  })

  it('shows the loading state while searching', async () => {
    fake.respondWith(() => new Promise(() => {}))
    await renderApp('/search?q=Karen')
    expect(await screen.findByRole('status')).toHaveTextContent('Searching...')
  })

  it('shows a failure with Try Again, and retries', async () => {
    let fail = true
    fake.respondWith((request) => {
      if (fail) return Promise.reject(new Error('boom'))
      return request.table === 'properties' ? { data: [property(1)], count: 1 } : { data: [], count: 0 }
    })
    const { user } = await renderApp('/search?q=Karen')
    expect(await screen.findByText('Search failed')).toBeInTheDocument()
    fail = false
    await user.click(screen.getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('region', { name: /^Properties/ })).toBeInTheDocument()
  })

  it('keeps the results of the kinds that answered when one fails', async () => {
    fake.respondWith((request) => {
      if (request.table === 'products') return Promise.reject(new Error('boom'))
      return request.table === 'properties' ? { data: [property(1)], count: 1 } : { data: [], count: 0 }
    })
    await renderApp('/search?q=Karen')
    expect(await screen.findByRole('region', { name: /^Properties/ })).toBeInTheDocument()
    const products = within(screen.getByRole('main')).getByRole('region', { name: 'Marketplace' })
    expect(within(products).getByText('Could not search Marketplace')).toBeInTheDocument()
    expect(within(products).getByRole('button', { name: 'Try Again' })).toBeInTheDocument()
  })

  it("puts the heart on each result; a visitor's click asks them to log in", async () => {
    answer({ properties: { data: [property(1)], count: 1 } })
    const { user, router } = await renderApp('/search?q=Kilimani')
    await user.click(await screen.findByRole('button', { name: `Save ${property(1).title}` }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/search?q=Kilimani' })
    expect(visibleToasts()[0]).toHaveTextContent('Please log in to continue with this action')
  })
})
