import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const id = '0e5a0000-0000-4000-8000-0000000000a1'
const property = {
  id,
  user_id: '0e5a0000-0000-4000-8000-000000000002',
  title: 'Bright bedsitter in Roysambu',
  type: 'Bedsitter',
  purpose: 'Rent',
  price: 12_000,
  price_unit: 'month',
  location: 'Roysambu, Nairobi',
  description: 'Near Thika Road, water all day.',
  deposit: 12_000,
  images: ['owner/a.jpg', 'https://cdn.example.com/b.jpg'],
  contact: '0712 345 678',
  is_active: true,
  payment_status: 'paid',
  paid_until: '2099-01-01T00:00:00Z',
  created_at: '2026-11-01T08:00:00Z',
}
const similar = { ...property, id: '0e5a0000-0000-4000-8000-0000000000a2', title: 'Bedsitter in Kahawa West', images: [] }

/** The detail row for maybeSingle() reads, the similar listings for the others. */
function answer(row: object, others: object[]) {
  return ({ calls }: Request) => ({ data: calls.some(([method]) => method === 'maybeSingle') ? row : others })
}

/** get_listing_owner's answer: the owner facts with the contact (a signed-in caller's view). */
function ownerRpc(contact: string | null) {
  return (name: string) => {
    if (name !== 'get_listing_owner') return undefined
    const request = {
      abortSignal: () => request,
      throwOnError: () => Promise.resolve({ data: { kyc_verified: false, contact }, error: null }),
    }
    return request
  }
}

beforeEach(() => {
  fake.respondWith(answer(property, [similar]))
  fake.client.rpc.mockReset()
  fake.client.rpc.mockImplementation(ownerRpc(property.contact))
})

describe('/properties/:id', () => {
  it('shows the gallery, every fact, the price per month with deposit, similar listings and its own title', async () => {
    const { user } = await renderApp(`/properties/${id}`)
    expect(await screen.findByRole('heading', { level: 1, name: property.title })).toBeInTheDocument()
    expect(document.title).toBe('Bright bedsitter in Roysambu - Bedsitter in Roysambu, Nairobi | KejaNest')
    expect(document.querySelector('meta[name="description"]')?.getAttribute('content')).toMatch(/^For Rent: Bright bedsitter/)

    const aside = screen.getByRole('heading', { level: 1 }).parentElement!
    expect(within(aside).getByText((_, element) => element?.tagName === 'P' && /^Ksh\s12,000\/month$/.test(element.textContent ?? ''))).toBeInTheDocument()
    expect(within(aside).getByText('Deposit').nextSibling).toHaveTextContent(/Ksh\s12,000/)
    expect(within(aside).getByText('Listed').nextSibling).toHaveTextContent('1 Nov 2026')
    const description = screen.getByRole('heading', { name: 'Description' }).parentElement!
    expect(description).toHaveTextContent('Near Thika Road, water all day.')

    const main = screen.getByRole('img', { name: property.title })
    expect(main.getAttribute('src')).toMatch(/\/storage\/v1\/render\/image\/public\/images\/owner\/a\.jpg\?width=1200$/)
    await user.click(screen.getByRole('button', { name: 'Show photo 2' }))
    expect(screen.getByRole('img', { name: property.title })).toHaveAttribute('src', 'https://cdn.example.com/b.jpg')

    const similarSection = screen.getByRole('heading', { name: 'Similar listings' }).parentElement!
    expect(within(similarSection).getByRole('link', { name: /Bedsitter in Kahawa West/ })).toHaveAttribute('href', `/properties/${similar.id}`)
    const similarRequest = fake.requestsOf('properties').find((request) => request.calls.some(([m]) => m === 'neq'))!
    expect(similarRequest.calls).toEqual(expect.arrayContaining([['eq', 'is_active', true], ['eq', 'type', 'Bedsitter'], ['eq', 'purpose', 'Rent'], ['neq', 'id', id], ['limit', 4]]))
  })

  it("keeps the owner's phone for signed-in users and sends visitors to sign in, remembering the page", async () => {
    await renderApp(`/properties/${id}`)
    const signIn = await screen.findByRole('link', { name: "Sign in to see the owner's contact" })
    expect(signIn).toHaveAttribute('href', '/login')
    expect(screen.queryByText(/0712 345 678/)).not.toBeInTheDocument()
  })

  it('shows signed-in users a call link with the phone number', async () => {
    await renderApp(`/properties/${id}`, { session })
    expect(await screen.findByRole('link', { name: 'Call 0712 345 678' })).toHaveAttribute('href', 'tel:0712345678')
  })

  it('lets the owner pay for their unpaid listing on its page', async () => {
    fake.respondWith((request) =>
      request.table === 'wallets'
        ? { data: { balance: 500 } }
        : answer({ ...property, user_id: session.user.id, payment_status: 'unpaid', is_active: false, paid_until: null }, [])(request),
    )
    await renderApp(`/properties/${id}`, { session })
    expect(await screen.findByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('button', { name: 'Pay 33 Nestcoins' })).toBeEnabled())
  })

  it('answers a malformed id with "not found" and no request', async () => {
    await renderApp('/properties/not-a-listing')
    expect(await screen.findByRole('heading', { name: 'Property not found' })).toBeInTheDocument()
    expect(fake.requestsOf('properties').some((request) => request.calls.some(([, , value]) => value === 'not-a-listing'))).toBe(false)
  })
})

describe('/lands/:id and /service-provider/:id', () => {
  it('shows a lease per month with its size, the land type and every feature', async () => {
    fake.respondWith(
      answer(
        {
          id,
          userid: 'u2',
          title: 'Plot in Kitengela',
          location: 'Kitengela',
          description: null,
          type: 'Mixed Use',
          purpose: 'Lease',
          price: 40_000,
          size: 0.5,
          sizeUnit: 'acres',
          features: ['Water', 'Electricity', 'Fenced'],
          images: [],
          is_active: true,
          payment_status: 'paid',
          paid_until: null,
          createdAt: '2026-11-01T00:00:00Z',
        },
        [],
      ),
    )
    await renderApp(`/lands/${id}`)
    expect(await screen.findByRole('heading', { level: 1, name: 'Plot in Kitengela' })).toBeInTheDocument()
    expect(screen.getByText((_, element) => element?.tagName === 'P' && /^Ksh\s40,000\/month$/.test(element.textContent ?? ''))).toBeInTheDocument()
    expect(screen.getByText('0.5 acres')).toBeInTheDocument()
    expect(screen.getAllByText('Mixed Use').length).toBeGreaterThan(0)
    expect(['Water', 'Electricity', 'Fenced'].every((feature) => screen.getByText(feature))).toBe(true)
    expect(screen.getByText('No description available')).toBeInTheDocument()
  })

  it('shows a provider with its verified badge, every service and price in Ksh', async () => {
    fake.respondWith(
      answer(
        {
          id,
          userid: 'u3',
          name: 'SkyShots Kenya',
          category: 'Drone',
          location: 'Nakuru',
          description: 'Aerial photos for events and farms.',
          services: ['Aerial photography', 'Crop survey', 'Roof inspection', 'Mapping'],
          pricing: JSON.stringify([{ title: 'Half day', price: 15000, duration: '4 hours' }]),
          reviews: [],
          rating: null,
          verified: true,
          phone: '0700 111 222',
          profileimage: null,
          is_active: true,
          created_at: '2026-11-01T00:00:00Z',
        },
        [],
      ),
    )
    await renderApp(`/service-provider/${id}`)
    expect(await screen.findByRole('heading', { level: 1, name: 'SkyShots Kenya' })).toBeInTheDocument()
    expect(screen.getByText('Verified')).toBeInTheDocument()
    expect(screen.getByText('New')).toBeInTheDocument()
    expect(screen.getByText('Mapping')).toBeInTheDocument()
    expect(screen.getByRole('rowheader', { name: 'Half day' }).parentElement).toHaveTextContent(/4 hours\s*Ksh\s15,000/)
    expect(document.title).toBe('SkyShots Kenya - Drone Services in Nakuru | KejaNest')
  })
})
