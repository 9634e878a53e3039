import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { loadSwahili, setLanguage } from '@/lib/i18n/i18n'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const id = '0e5a0000-0000-4000-8000-0000000000b1'

const property = {
  id,
  user_id: '0e5a0000-0000-4000-8000-000000000009',
  title: 'Studio in Westlands',
  type: 'Bedsitter',
  purpose: 'Rent',
  price: 3_500,
  price_unit: 'week',
  location: 'Westlands, Nairobi',
  description: 'Furnished.',
  deposit: null,
  images: ['owner/studio.jpg'],
  contact: '0799 000 000', // the row's own contact: the page shows get_listing_owner's instead
  is_active: true,
  payment_status: 'paid',
  paid_until: '2099-01-01T00:00:00Z',
  created_at: '2026-11-01T08:00:00Z',
}
const land = {
  id,
  userid: '0e5a0000-0000-4000-8000-000000000009',
  title: 'Plot in Ruiru',
  location: 'Ruiru',
  description: null,
  type: 'Residential',
  purpose: 'Sale',
  price: 1_500_000,
  size: 0.125,
  sizeUnit: 'acres',
  features: [],
  images: [],
  is_active: true,
  payment_status: 'paid',
  paid_until: null,
  createdAt: '2026-11-01T00:00:00Z',
}
const provider = {
  id,
  userid: '0e5a0000-0000-4000-8000-000000000009',
  name: 'Swift Movers',
  category: 'Moving',
  location: 'Thika',
  description: 'Careful movers.',
  services: ['Packing'],
  pricing: [],
  reviews: [] as unknown,
  rating: 4.5,
  verified: false,
  phone: '0700 222 333',
  profileimage: null,
  is_active: true,
  created_at: '2026-11-01T00:00:00Z',
}

/** The detail row for maybeSingle() reads, no similar listings. */
function answer(row: object) {
  return ({ calls }: Request) => ({ data: calls.some(([method]) => method === 'maybeSingle') ? row : [] })
}

/** Programs get_listing_owner; other rpcs answer nothing. */
function owner(facts: { kyc_verified: boolean; contact: string | null } | null) {
  fake.client.rpc.mockImplementation((name: string) => {
    if (name !== 'get_listing_owner') return undefined
    const request = {
      abortSignal: () => request,
      throwOnError: () => Promise.resolve({ data: facts, error: null }),
    }
    return request
  })
}

beforeEach(() => {
  fake.client.rpc.mockReset()
  fake.respondWith(answer(property))
  owner({ kyc_verified: true, contact: '0711 000 111' })
})

describe('owner block of the detail pages', () => {
  it("shows the KYC badge and the server's contact to a signed-in user", async () => {
    await renderApp(`/properties/${id}`, { session })
    expect(await screen.findByRole('link', { name: 'Call 0711 000 111' })).toHaveAttribute('href', 'tel:0711000111')
    expect(screen.getByText('KYC verified')).toHaveAttribute('title', "The owner's identity has been verified by KejaNest")
    expect(screen.queryByText(/0799 000 000/)).not.toBeInTheDocument()
    expect(fake.client.rpc).toHaveBeenCalledWith('get_listing_owner', { p_kind: 'property', p_id: id })
  })

  it('shows a visitor the badge and the sign-in link, never a phone', async () => {
    owner({ kyc_verified: true, contact: null })
    await renderApp(`/properties/${id}`)
    expect(await screen.findByText('KYC verified')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: "Sign in to see the owner's contact" })).toHaveAttribute('href', '/login')
    expect(screen.queryByRole('link', { name: /^Call/ })).not.toBeInTheDocument()
  })

  it('shows no badge when the owner is not KYC-verified', async () => {
    owner({ kyc_verified: false, contact: '0711 000 111' })
    await renderApp(`/properties/${id}`, { session })
    expect(await screen.findByRole('link', { name: 'Call 0711 000 111' })).toBeInTheDocument()
    expect(screen.queryByText('KYC verified')).not.toBeInTheDocument()
  })

  it('gives land the owner block: badge and the owner phone', async () => {
    fake.respondWith(answer(land))
    owner({ kyc_verified: true, contact: '0722 333 444' })
    await renderApp(`/lands/${id}`, { session })
    expect(await screen.findByRole('link', { name: 'Call 0722 333 444' })).toHaveAttribute('href', 'tel:0722333444')
    expect(screen.getByText('KYC verified')).toBeInTheDocument()
    expect(fake.client.rpc).toHaveBeenCalledWith('get_listing_owner', { p_kind: 'land', p_id: id })
  })

  it('asks for the product and service owners by kind', async () => {
    fake.respondWith(answer(provider))
    await renderApp(`/service-provider/${id}`, { session })
    expect(await screen.findByRole('link', { name: 'Call 0711 000 111' })).toBeInTheDocument()
    expect(fake.client.rpc).toHaveBeenCalledWith('get_listing_owner', { p_kind: 'service', p_id: id })
  })

  it('shows the badge in Kiswahili', async () => {
    setLanguage('sw')
    await loadSwahili()
    try {
      await renderApp(`/properties/${id}`)
      expect(await screen.findByText('KYC imethibitishwa')).toBeInTheDocument()
    } finally {
      setLanguage('en')
    }
  })
})

describe('rent period from price_unit', () => {
  const priceText = () =>
    screen.getByText((_, element) => element?.tagName === 'P' && /^Ksh\s/.test(element.textContent ?? '') && element.closest('a') === null)
      .textContent

  it.each([
    ['week', '/week'],
    ['day', '/day'],
    ['/year', '/year'],
    ['Monthly', '/month'],
    [null, '/month'],
    ['fortnight', '/fortnight'],
  ])('price_unit %s shows %s', async (unit, suffix) => {
    fake.respondWith(answer({ ...property, price_unit: unit }))
    await renderApp(`/properties/${id}`)
    await screen.findByRole('heading', { level: 1, name: property.title })
    expect(priceText()).toMatch(new RegExp(`^Ksh\\s3,500${suffix}$`))
  })

  it('shows no period for a sale', async () => {
    fake.respondWith(answer({ ...property, purpose: 'Sale', price: 9_000_000 }))
    await renderApp(`/properties/${id}`)
    await screen.findByRole('heading', { level: 1, name: property.title })
    expect(priceText()).toMatch(/^Ksh\s9,000,000$/)
  })
})

describe("a service provider's reviews", () => {
  it('lists reviews stored as JSON text, skipping what is not a review', async () => {
    const reviews = JSON.stringify([
      { name: 'Achieng', rating: 5, comment: 'On time and careful.', date: '2026-10-02T00:00:00Z' },
      { text: 'Fair prices' },
      'Would hire again',
      42,
      null,
      { rating: 'n/a' },
    ])
    fake.respondWith(answer({ ...provider, reviews }))
    await renderApp(`/service-provider/${id}`)
    const section = (await screen.findByRole('heading', { name: 'Reviews' })).parentElement!
    const items = within(section).getAllByRole('listitem')
    expect(items).toHaveLength(3)
    expect(items[0]).toHaveTextContent('Achieng')
    expect(items[0]).toHaveTextContent('On time and careful.')
    expect(items[0]).toHaveTextContent('2 Oct 2026')
    expect(within(items[0]).getByLabelText('Rated 5 out of 5')).toBeInTheDocument()
    expect(items[1]).toHaveTextContent('Customer')
    expect(items[1]).toHaveTextContent('Fair prices')
    expect(items[2]).toHaveTextContent('Would hire again')
  })

  it.each([[[]], ['not json'], [{ rating: 5 }], [null]])('shows the empty state for %j', async (reviews) => {
    fake.respondWith(answer({ ...provider, reviews }))
    await renderApp(`/service-provider/${id}`)
    const section = (await screen.findByRole('heading', { name: 'Reviews' })).parentElement!
    expect(within(section).getByText('No reviews yet')).toBeInTheDocument()
  })
})

describe('document meta of the detail pages', () => {
  const og = (property: string) => document.head.querySelector(`meta[property="${property}"]`)?.getAttribute('content')

  it('sets the Open Graph tags with the first photo', async () => {
    await renderApp(`/properties/${id}`)
    await screen.findByRole('heading', { level: 1, name: property.title })
    expect(og('og:title')).toBe(document.title)
    expect(og('og:title')).toMatch(/^Studio in Westlands/)
    expect(og('og:description')).toMatch(/^For Rent: Studio in Westlands/)
    expect(og('og:type')).toBe('article')
    expect(og('og:image')).toMatch(/\/storage\/v1\/object\/public\/images\/owner\/studio\.jpg$/)
  })

  it('returns to the default title while loading and on a page that sets none', async () => {
    const { router } = await renderApp(`/properties/${id}`)
    await screen.findByRole('heading', { level: 1, name: property.title })
    expect(document.title).toMatch(/^Studio in Westlands/)

    // Another listing, still loading: not the previous listing's title.
    fake.respondWith(() => new Promise(() => {}))
    await router.navigate(`/properties/0e5a0000-0000-4000-8000-0000000000b2`)
    await waitFor(() => expect(document.title).toBe('KejaNest - Real Estate and Household Items in Kenya'))
    expect(og('og:image')).toBeUndefined()
    expect(og('og:type')).toBe('website')

    fake.respondWith(answer(property))
    await router.navigate(`/properties/${id}`)
    await screen.findByRole('heading', { level: 1, name: property.title })
    await router.navigate('/not-built-yet')
    expect(await screen.findByRole('heading', { level: 1, name: 'Coming soon' })).toBeInTheDocument()
    // The title follows the page in an effect, after its first paint.
    await waitFor(() => expect(document.title).toBe('KejaNest - Real Estate and Household Items in Kenya'))
    expect(document.querySelector('meta[name="description"]')?.getAttribute('content')).toMatch(/Kenya's leading platform/)
    expect(og('og:title')).toBe(document.title)
  })
})
