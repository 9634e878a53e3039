import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { formatDate } from '@/lib/format'
import { loadSwahili, setLanguage } from '@/lib/i18n/i18n'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const userId = session.user.id
const future = new Date(Date.now() + 10 * 86_400_000).toISOString()

const paymentStates = {
  unpaid: { payment_status: 'unpaid', is_active: false, paid_until: null, moderation_notes: null },
  pending: { payment_status: 'pending', is_active: false, paid_until: null, moderation_notes: null },
  live: { payment_status: 'paid', is_active: true, paid_until: future, moderation_notes: null },
  rejected: { payment_status: 'rejected', is_active: false, paid_until: null, moderation_notes: 'Photos do not match the description' },
}

function property(id: string, title: string, purpose: 'Rent' | 'Sale', state: keyof typeof paymentStates) {
  return {
    id,
    user_id: userId,
    title,
    type: 'One Bedroom',
    purpose,
    price: 25_000,
    price_unit: 'month',
    location: 'Kilimani',
    description: 'Bright flat',
    deposit: purpose === 'Rent' ? 50_000 : null,
    images: [],
    contact: '+254712345678',
    created_at: '2026-11-01T00:00:00Z',
    ...paymentStates[state],
  }
}

const product = {
  id: 'b1',
  user_id: userId,
  name: 'Oak dining table',
  price: 18_000,
  status: 'New',
  category: 'Furniture',
  description: 'Seats six',
  location: 'Nakuru',
  images: [],
  created_at: '2026-11-01T00:00:00Z',
  ...paymentStates.live,
}

const land = {
  id: 'l1',
  userid: userId,
  title: 'Half acre in Juja',
  location: 'Juja',
  description: 'Flat, fenced',
  type: 'Residential',
  purpose: 'Sale',
  price: 1_500_000,
  size: 0.5,
  sizeUnit: 'acres',
  features: ['Fenced'],
  images: [],
  createdAt: '2026-11-01T00:00:00Z',
  ...paymentStates.unpaid,
}

function service(id: string, name: string, state: keyof typeof paymentStates, overrides: object = {}) {
  return {
    id,
    userid: userId,
    name,
    category: 'Moving',
    location: 'Nairobi',
    description: 'Careful movers',
    services: ['Packing', 'Loading', 'Transport', 'Storage'],
    pricing: [],
    reviews: [],
    rating: null,
    verified: false,
    phone: '+254712345678',
    profileimage: null,
    created_at: '2026-11-01T00:00:00Z',
    ...paymentStates[state],
    ...overrides,
  }
}

type Answer = unknown[] | ((request: Request) => unknown)

/** Answers reads of each table with its rows; writes succeed unless `writes` says otherwise. */
function answer(rows: Record<string, Answer>, writes: (request: Request) => unknown = () => ({ data: null })) {
  fake.respondWith((request: Request) => {
    const method = request.calls[0]?.[0]
    if (method === 'update' || method === 'delete') return writes(request) as { data: unknown }
    if (request.table === 'wallets') return { data: { balance: 500 } }
    const value = rows[request.table]
    if (typeof value === 'function') return value(request) as { data: unknown }
    return { data: value ?? [] }
  })
}

const cardActions = (title: string) => screen.getByRole('group', { name: `Actions for ${title}` })
const toastText = () => visibleToasts()[0]?.textContent ?? ''
const writesTo = (table: string, method: string) => fake.requestsOf(table).filter((request) => request.calls[0]?.[0] === method)

beforeEach(() => {
  fake.requests.length = 0
  fake.client.rpc.mockReset()
  answer({})
})

afterEach(() => setLanguage('en'))

describe('My pages guard', () => {
  it.each(['/my-products', '/my-lands', '/my-services'])('sends signed-out visitors from %s to /login, remembering the page', async (path) => {
    const { router } = await renderApp(path)
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: path })
  })

  it("shows /my-properties' own 'Sign In Required' screen, whose Sign In returns here", async () => {
    const { user, router } = await renderApp('/my-properties')
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In Required' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/my-properties')
    expect(fake.requestsOf('properties')).toHaveLength(0)
    await user.click(screen.getByRole('link', { name: 'Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/my-properties' })
  })
})

describe('/my-properties', () => {
  it('shows the loading state, then only the owner’s rows', async () => {
    let release!: () => void
    const ready = new Promise<void>((resolve) => (release = resolve))
    answer({ properties: () => ready.then(() => ({ data: [property('p1', 'Kilimani flat', 'Rent', 'live')] })) })
    await renderApp('/my-properties', { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'My Properties' })).toBeInTheDocument()
    expect(screen.getAllByText('Loading your properties...').length).toBeGreaterThan(0)
    release()
    expect(await screen.findByText('Kilimani flat')).toBeInTheDocument()
    const read = fake.requestsOf('properties')[0]
    expect(read.calls).toContainEqual(['select', '*'])
    expect(read.calls).toContainEqual(['eq', 'user_id', userId])
    expect(screen.getByRole('link', { name: /List New Property/ })).toHaveAttribute('href', '/list-property')
  })

  it('shows the error box and retries with Try Again', async () => {
    let fail = true
    answer({ properties: () => (fail ? Promise.reject(new Error('boom')) : { data: [property('p1', 'Kilimani flat', 'Rent', 'live')] }) })
    const { user } = await renderApp('/my-properties', { session })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load your properties. An error occurred while loading your properties')
    fail = false
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('Kilimani flat')).toBeInTheDocument()
  })

  it('shows the empty state with List a Property', async () => {
    await renderApp('/my-properties', { session })
    expect(await screen.findByRole('heading', { name: "You haven't listed any properties yet" })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'List a Property' })).toHaveAttribute('href', '/list-property')
  })

  it('badges each payment state with its action, and filters Rentals and Sales', async () => {
    answer({
      properties: [
        property('p1', 'Unpaid flat', 'Rent', 'unpaid'),
        property('p2', 'Waiting flat', 'Rent', 'pending'),
        property('p3', 'Live house', 'Sale', 'live'),
        property('p4', 'Refused flat', 'Rent', 'rejected'),
      ],
    })
    const { user } = await renderApp('/my-properties', { session })
    await screen.findByText('Unpaid flat')

    const unpaid = within(cardActions('Unpaid flat'))
    expect(unpaid.getByText('Unpaid')).toBeInTheDocument()
    // A draft left at the pay step is continued from here (issue 13).
    expect(unpaid.getByRole('button', { name: 'Continue' })).toBeInTheDocument()
    expect(unpaid.queryByRole('button', { name: 'Pay fee' })).not.toBeInTheDocument()
    expect(unpaid.queryByRole('button', { name: /Activate|Deactivate/ })).not.toBeInTheDocument()

    const pending = within(cardActions('Waiting flat'))
    expect(pending.getByText('Pending approval')).toBeInTheDocument()
    expect(pending.queryByRole('button', { name: /Continue|Pay fee|Renew/ })).not.toBeInTheDocument()

    const live = within(cardActions('Live house'))
    expect(live.getByText(`Active until ${formatDate(future)}`)).toBeInTheDocument()
    expect(live.getByRole('button', { name: 'Renew' })).toBeInTheDocument()
    expect(live.getByRole('button', { name: 'Deactivate' })).toBeInTheDocument()

    const rejected = within(cardActions('Refused flat'))
    expect(rejected.getByText('Rejected')).toBeInTheDocument()
    expect(rejected.getByRole('button', { name: 'Pay fee' })).toBeInTheDocument()
    expect(rejected.getByText('Reason: Photos do not match the description')).toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Sales' }))
    expect(screen.getByText('Live house')).toBeInTheDocument()
    expect(screen.queryByText('Unpaid flat')).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Rentals' }))
    expect(screen.queryByText('Live house')).not.toBeInTheDocument()
    expect(screen.getByText('Refused flat')).toBeInTheDocument()
  })

  it("continues an unpaid draft at the pay step (the listing-fee panel)", async () => {
    answer({ properties: [property('p1', 'Unpaid flat', 'Rent', 'unpaid')], listing_fee_rates: [] })
    const { user } = await renderApp('/my-properties', { session })
    expect(await screen.findByText('Draft: not published yet. Continue to pay the listing fee and publish it.')).toBeInTheDocument()
    await user.click(await within(await screen.findByRole('group', { name: 'Actions for Unpaid flat' })).findByRole('button', { name: 'Continue' }))
    const dialog = await screen.findByRole('dialog', { name: 'Listing fee for Unpaid flat' })
    expect(within(dialog).getByLabelText('Number of days')).toBeInTheDocument()
    expect(await within(dialog).findByRole('button', { name: 'Pay 45 Nestcoins' })).toBeInTheDocument()
  })

  it('deletes only after confirmation', async () => {
    answer({ properties: [property('p1', 'Kilimani flat', 'Rent', 'live')] })
    const { user } = await renderApp('/my-properties', { session })
    await screen.findByText('Kilimani flat')

    await user.click(within(cardActions('Kilimani flat')).getByRole('button', { name: 'Delete' }))
    let dialog = await screen.findByRole('dialog', { name: 'Delete this listing?' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(writesTo('properties', 'delete')).toHaveLength(0)

    await user.click(within(cardActions('Kilimani flat')).getByRole('button', { name: 'Delete' }))
    dialog = await screen.findByRole('dialog', { name: 'Delete this listing?' })
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(toastText()).toContain('Property deleted successfully'))
    expect(writesTo('properties', 'delete')[0].calls).toContainEqual(['eq', 'id', 'p1'])
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
  })

  it('deactivates a paid listing', async () => {
    answer({ properties: [property('p1', 'Kilimani flat', 'Rent', 'live')] })
    const { user } = await renderApp('/my-properties', { session })
    await user.click(await within(await screen.findByRole('group', { name: 'Actions for Kilimani flat' })).findByRole('button', { name: 'Deactivate' }))
    await waitFor(() => expect(toastText()).toContain('Listing deactivated'))
    const update = writesTo('properties', 'update')[0]
    expect(update.calls[0]).toEqual(['update', { is_active: false }])
    expect(update.calls).toContainEqual(['eq', 'id', 'p1'])
  })
})

describe('/my-products', () => {
  it('shows the cards with their badge and the empty state link', async () => {
    answer({ products: [product] })
    await renderApp('/my-products', { session })
    expect(await screen.findByText('Oak dining table')).toBeInTheDocument()
    expect(fake.requestsOf('products')[0].calls).toContainEqual(['eq', 'user_id', userId])
    expect(within(cardActions('Oak dining table')).getByText(`Active until ${formatDate(future)}`)).toBeInTheDocument()
    // Spec §2: the condition badge is green for New, amber otherwise.
    expect(screen.getByText('New').className).toMatch(/bg-success/)
    expect(screen.getByRole('link', { name: /List New Product/ })).toHaveAttribute('href', '/list-product')
  })

  it('shows its error and empty states', async () => {
    answer({ products: () => Promise.reject(new Error('boom')) })
    await renderApp('/my-products', { session })
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load your products')
  })

  it('reports a failed delete and keeps the dialog open', async () => {
    answer({ products: [product] }, () => Promise.reject(new Error('permission denied')))
    const { user } = await renderApp('/my-products', { session })
    await user.click(await within(await screen.findByRole('group', { name: 'Actions for Oak dining table' })).findByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete this listing?' })
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    // The modal dialog hides the rest of the page from the accessibility tree, so find the toast by its text.
    expect(await screen.findByText('Failed to delete product')).toBeInTheDocument()
    expect(screen.getByText('permission denied')).toBeInTheDocument()
    expect(screen.getByRole('dialog', { name: 'Delete this listing?' })).toBeInTheDocument()
  })
})

describe('/my-lands', () => {
  it('shows the spec empty state', async () => {
    await renderApp('/my-lands', { session })
    expect(await screen.findByRole('heading', { name: "You don't have any land listings yet" })).toBeInTheDocument()
    expect(screen.getByText('List your first land for sale or lease')).toBeInTheDocument()
  })

  it('shows the error state', async () => {
    answer({ lands: () => Promise.reject(new Error('boom')) })
    await renderApp('/my-lands', { session })
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load your land listings')
  })

  it('lists the owner’s lands with View Details and deletes after confirmation', async () => {
    answer({ lands: [land] })
    const { user } = await renderApp('/my-lands', { session })
    expect(await screen.findByText('Half acre in Juja')).toBeInTheDocument()
    expect(fake.requestsOf('lands')[0].calls).toContainEqual(['eq', 'userid', userId])
    expect(screen.getByRole('link', { name: /View Details/ })).toHaveAttribute('href', '/lands/l1')
    expect(within(cardActions('Half acre in Juja')).getByText('Unpaid')).toBeInTheDocument()
    await user.click(within(cardActions('Half acre in Juja')).getByRole('button', { name: 'Delete' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(toastText()).toContain('Land listing deleted successfully'))
  })
})

describe('/my-services', () => {
  it('shows the empty state with its buttons', async () => {
    await renderApp('/my-services', { session })
    expect(await screen.findByRole('heading', { name: 'No Services Listed' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'List Your First Service' })).toHaveAttribute('href', '/list-service')
    expect(screen.getByRole('link', { name: 'Browse Services' })).toHaveAttribute('href', '/services')
    expect(screen.getByRole('link', { name: /Add New Service/ })).toHaveAttribute('href', '/list-service')
  })

  it('shows the error state', async () => {
    answer({ service_providers: () => Promise.reject(new Error('boom')) })
    await renderApp('/my-services', { session })
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load your services')
  })

  it('dims inactive services, badges verification and toggles activation', async () => {
    answer(
      { service_providers: [service('s1', 'Swift Movers', 'live', { verified: true }), service('s2', 'Sky Drones', 'unpaid')] },
      (request) =>
        request.calls.some(([method, , value]) => method === 'eq' && value === 's2')
          ? Promise.reject(new Error('Pay the listing fee to activate this listing'))
          : { data: null },
    )
    const { user } = await renderApp('/my-services', { session })
    await screen.findByText('Swift Movers')
    expect(fake.requestsOf('service_providers')[0].calls).toContainEqual(['eq', 'userid', userId])
    expect(screen.getAllByText('Pending Verification')).toHaveLength(1)
    expect(screen.getAllByText('+1 more')).toHaveLength(2)
    expect(cardActions('Sky Drones').closest('[data-inactive]')).not.toBeNull()
    expect(cardActions('Swift Movers').closest('[data-inactive]')).toBeNull()

    await user.click(within(cardActions('Swift Movers')).getByRole('button', { name: 'Deactivate' }))
    await waitFor(() => expect(toastText()).toContain('Service deactivated successfully'))

    await user.click(within(cardActions('Sky Drones')).getByRole('button', { name: 'Activate' }))
    await waitFor(() => expect(toastText()).toContain('Failed to update service'))
    expect(toastText()).toContain('Pay the listing fee to activate this listing')
  })

  it('edits through /edit-service/{id} after an info toast', async () => {
    answer({ service_providers: [service('s1', 'Swift Movers', 'live')] })
    const { user, router } = await renderApp('/my-services', { session })
    await user.click(await within(await screen.findByRole('group', { name: 'Actions for Swift Movers' })).findByRole('button', { name: 'Edit' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/edit-service/s1'))
    expect(toastText()).toContain('Editing service s1')
  })

  it('deletes after confirmation', async () => {
    answer({ service_providers: [service('s1', 'Swift Movers', 'live')] })
    const { user } = await renderApp('/my-services', { session })
    await user.click(await within(await screen.findByRole('group', { name: 'Actions for Swift Movers' })).findByRole('button', { name: 'Delete' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(toastText()).toContain('Service deleted successfully'))
    expect(writesTo('service_providers', 'delete')[0].calls).toContainEqual(['eq', 'id', 's1'])
  })
})

describe('My pages in Kiswahili', () => {
  it('translates the page copy', async () => {
    setLanguage('sw')
    await loadSwahili()
    await renderApp('/my-lands', { session })
    expect(await screen.findByRole('heading', { name: 'Bado huna tangazo lolote la ardhi' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Ardhi Zangu' })).toBeInTheDocument()
  })
})
