import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { screen, waitFor, within } from '@testing-library/react'
import type { ReactNode } from 'react'
import { MemoryRouter } from 'react-router'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderWithProviders, settleAuth } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { PublishListingPanel } = await import('../publish-listing-panel')
const { listingPaymentState, OwnerListingStatus } = await import('../owner-listing-status')

const session = fakeSession()

/** Answers the wallet with `balance` and the fee table with nothing (the static spec table applies). */
function withBalance(balance: number) {
  fake.respondWith(({ table }) => (table === 'wallets' ? { data: { balance } } : { data: [] }))
}

async function renderPanel(ui: ReactNode) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const result = renderWithProviders(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter>{ui}</MemoryRouter>
    </QueryClientProvider>,
    { session },
  )
  await settleAuth(result.authClient)
  return result
}

const oneBedroomToRent = { type: 'One Bedroom', purpose: 'Rent', price: 25_000 }

beforeEach(() => {
  fake.client.rpc.mockReset()
})

describe('PublishListingPanel', () => {
  it("offers 'Purchase Nestcoins' (destructive) instead of paying when the balance is short", async () => {
    withBalance(40)
    const { user } = await renderPanel(<PublishListingPanel kind="property" listingId="p1" listing={oneBedroomToRent} detailHref="/properties/p1" />)
    const purchase = await screen.findByRole('button', { name: 'Purchase Nestcoins' })
    expect(purchase.className).toMatch(/bg-destructive/)
    expect(screen.queryByRole('button', { name: /^Pay / })).not.toBeInTheDocument()
    expect(within(screen.getByLabelText('Cost summary')).getByText('40 Nestcoins')).toBeInTheDocument()

    await user.click(purchase)
    expect(await screen.findByRole('dialog', { name: 'Purchase Nestcoins' })).toBeInTheDocument()
    expect(fake.client.rpc).not.toHaveBeenCalled()
  })

  it('pays per day × days through publish_listing and explains the approval that follows', async () => {
    withBalance(200)
    fake.client.rpc.mockReturnValue({
      throwOnError: async () => ({ data: { total: 45, per_day: 45, days: 1, is_active: false, payment_status: 'pending', balance: 155 } }),
    })
    const { user } = await renderPanel(<PublishListingPanel kind="property" listingId="p1" listing={oneBedroomToRent} detailHref="/properties/p1" />)
    expect(screen.getByText('After payment your listing waits for approval by our team before it appears publicly.')).toBeInTheDocument()
    const days = screen.getByLabelText('Number of days')
    await user.clear(days)
    await user.type(days, '4')
    expect(await screen.findByRole('button', { name: 'Pay 180 Nestcoins' })).toBeEnabled()
    await user.clear(days)
    await user.type(days, '1')
    await user.click(await screen.findByRole('button', { name: 'Pay 45 Nestcoins' }))

    expect(fake.client.rpc).toHaveBeenCalledWith('publish_listing', expect.objectContaining({ p_kind: 'property', p_listing_id: 'p1', p_days: 1 }))
    expect(await screen.findByRole('heading', { name: 'Pending approval' })).toBeInTheDocument()
    expect(screen.getByText(/^Payment received for 1 day\./)).toBeInTheDocument()
    expect(screen.getByText('New balance: 155 Nestcoins')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'View listing' })).toHaveAttribute('href', '/properties/p1')
  })

  it("shows the server's refusal and the packages when the balance ran out meanwhile", async () => {
    withBalance(100)
    fake.client.rpc.mockReturnValue({
      throwOnError: () => Promise.reject(new Error('Insufficient Nestcoins balance')),
    })
    const { user } = await renderPanel(<PublishListingPanel kind="land" listingId="l1" listing={{ type: 'Residential' }} detailHref="/lands/l1" />)
    expect(screen.getByText('Your listing goes live as soon as you pay.')).toBeInTheDocument()
    await user.click(await screen.findByRole('button', { name: 'Pay 60 Nestcoins' }))
    expect(await screen.findByRole('dialog', { name: 'Purchase Nestcoins' })).toBeInTheDocument()
    expect(screen.getByText('Insufficient Nestcoins balance')).toBeInTheDocument()
  })
})

describe('listing payment state', () => {
  const now = Date.parse('2026-11-22T12:00:00Z')
  const future = '2026-12-01T00:00:00Z'
  const past = '2026-11-01T00:00:00Z'

  it.each([
    [{ payment_status: 'unpaid', is_active: false, paid_until: null }, 'unpaid'],
    [{ payment_status: 'pending', is_active: false, paid_until: null }, 'pending'],
    [{ payment_status: 'rejected', is_active: false, paid_until: null }, 'rejected'],
    [{ payment_status: 'paid', is_active: true, paid_until: future }, 'live'],
    [{ payment_status: 'paid', is_active: false, paid_until: future }, 'paused'],
    [{ payment_status: 'paid', is_active: false, paid_until: past }, 'expired'],
    [{ payment_status: 'paid', is_active: true, paid_until: past }, 'expired'],
  ] as const)('%o is %s', (listing, state) => {
    expect(listingPaymentState(listing, now)).toBe(state)
  })
})

describe('OwnerListingStatus', () => {
  const listing = { id: 'p1', ownerId: session.user.id, payment_status: 'unpaid', is_active: false, paid_until: null }

  it('shows nothing to anyone but the owner', async () => {
    withBalance(0)
    await renderPanel(
      <OwnerListingStatus kind="property" listing={{ ...listing, ownerId: 'someone-else' }} fee={oneBedroomToRent} detailHref="/properties/p1" />,
    )
    expect(screen.queryByRole('heading')).not.toBeInTheDocument()
    expect(screen.queryByText(/have not paid its fee yet/)).not.toBeInTheDocument()
  })

  it('lets the owner pay for an unpaid listing', async () => {
    withBalance(500)
    await renderPanel(<OwnerListingStatus kind="property" listing={listing} fee={oneBedroomToRent} detailHref="/properties/p1" />)
    expect(screen.getByText(/have not paid its fee yet/)).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('button', { name: 'Pay 45 Nestcoins' })).toBeEnabled())
  })

  it('explains to the owner that a paid listing awaits approval', async () => {
    withBalance(500)
    await renderPanel(
      <OwnerListingStatus kind="property" listing={{ ...listing, payment_status: 'pending' }} fee={oneBedroomToRent} detailHref="/properties/p1" />,
    )
    expect(screen.getByRole('heading', { name: 'Pending approval' })).toBeInTheDocument()
    expect(screen.getByText(/An administrator will review this listing/)).toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'Pay and publish' })).not.toBeInTheDocument()
  })
})
