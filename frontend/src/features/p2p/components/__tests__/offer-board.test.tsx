import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'

import type { BoardOffer } from '../../api/get-board'
import { me, other, renderSignedIn, rpcAnswers } from './helpers'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))
vi.mock('../../api/realtime', () => ({ useTradeRealtime: vi.fn(), useMyTradesRealtime: vi.fn(), useBoardRealtime: vi.fn() }))

const { OfferBoard } = await import('../offer-board')

function offer(change: Partial<BoardOffer>): BoardOffer {
  return {
    id: 'o1', user_id: other, action: 'sell', currency: 'nestcoins', amount: 300, filled_amount: 0, remaining_amount: 300,
    rate_per_unit: 2.5, min_limit: 10, max_limit: 200, payment_methods: ['M-Pesa'], auto_cancel_duration: '1 day',
    expires_at: '2099-01-01T00:00:00Z', created_at: '2026-01-01T00:00:00Z', owner_name: 'Otieno', owner_kyc_verified: true,
    owner_completed_trades: 12, owner_completion_rate: 0.9231, owner_rating_avg: 4.75, owner_rating_count: 8, ...change,
  }
}

beforeEach(() => {
  fake.client.rpc.mockReset()
  fake.respondWith(() => ({ data: [] }))
})

describe('OfferBoard', () => {
  it("shows each owner's record and KYC badge, 'Your Offer' on mine and Buy Now / Sell Now on others'", async () => {
    rpcAnswers({
      get_p2p_board: [offer({}), offer({ id: 'o2', action: 'buy', owner_name: 'Njeri', owner_kyc_verified: false }), offer({ id: 'o3', user_id: me, owner_name: 'Wanjiku' })],
    })
    await renderSignedIn(<OfferBoard userId={me} />)
    const cards = await screen.findAllByTestId('offer-card')
    expect(cards).toHaveLength(3)
    expect(within(cards[0]).getByRole('img', { name: 'KYC verified' })).toBeInTheDocument()
    expect(within(cards[0]).getByTestId('owner-record')).toHaveTextContent('12 trades92% completion4.8 ★ (8)')
    expect(within(cards[0]).getByRole('button', { name: 'Buy Now' })).toBeInTheDocument()
    expect(within(cards[1]).getByRole('button', { name: 'Sell Now' })).toBeInTheDocument()
    expect(within(cards[1]).queryByRole('img', { name: 'KYC verified' })).not.toBeInTheDocument()
    expect(within(cards[2]).getByText('Your Offer')).toBeInTheDocument()
    expect(within(cards[2]).queryByRole('button', { name: 'Buy Now' })).not.toBeInTheDocument()
    expect(within(cards[2]).getByRole('button', { name: 'Cancel offer' })).toBeInTheDocument()
  })

  it('sends filters, search and sort to the server; the badge counts active filters; Clear Filters resets them and the search', async () => {
    rpcAnswers({ get_p2p_board: [offer({})] })
    const { user } = await renderSignedIn(<OfferBoard userId={me} />)
    await screen.findAllByTestId('offer-card')
    await user.click(screen.getByRole('button', { name: /Filter Offers/ }))
    const panel = screen.getByRole('group', { name: 'Filter Offers' })
    await user.selectOptions(within(panel).getByLabelText('Action'), 'buy')
    expect(screen.getByTestId('filter-badge')).toHaveTextContent('1')
    await user.selectOptions(within(panel).getByLabelText('Currency'), 'keys')
    expect(screen.getByTestId('filter-badge')).toHaveTextContent('2')
    await user.type(screen.getByRole('searchbox', { name: 'Search offers' }), 'm-pesa')
    await user.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'rate_asc')
    await waitFor(() =>
      expect(fake.client.rpc).toHaveBeenLastCalledWith('get_p2p_board', expect.objectContaining({ p_action: 'buy', p_currency: 'keys', p_search: 'm-pesa', p_sort: 'rate_asc' })),
    )
    expect(screen.getByRole('tab', { name: 'Buy offers (you sell)' })).toHaveAttribute('aria-selected', 'true')
    // Clicking elsewhere closed the popover; it opens again with the filters kept.
    expect(screen.queryByRole('group', { name: 'Filter Offers' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: /Filter Offers/ }))
    const reopened = screen.getByRole('group', { name: 'Filter Offers' })
    expect(within(reopened).getByLabelText('Currency')).toHaveValue('keys')
    await user.click(within(reopened).getByRole('button', { name: 'Clear Filters' }))
    expect(screen.queryByTestId('filter-badge')).not.toBeInTheDocument()
    expect(screen.getByRole('searchbox', { name: 'Search offers' })).toHaveValue('')
    await waitFor(() =>
      expect(fake.client.rpc).toHaveBeenLastCalledWith('get_p2p_board', expect.objectContaining({ p_action: null, p_currency: null, p_search: null })),
    )
  })

  it('empty: invites the first offer, or suggests other filters', async () => {
    rpcAnswers({ get_p2p_board: [] })
    const { user } = await renderSignedIn(<OfferBoard userId={me} />)
    expect(await screen.findByRole('heading', { name: 'No offers found' })).toBeInTheDocument()
    expect(screen.getByText('Be the first to create a P2P offer!')).toBeInTheDocument()
    await user.click(screen.getByRole('tab', { name: 'Sell offers (you buy)' }))
    expect(await screen.findByText('Try adjusting your filters to see more offers.')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Create First Offer' }))
    expect(await screen.findByRole('dialog', { name: 'Create New P2P Offer' })).toBeInTheDocument()
  })

  it('a failed load says so with a retry', async () => {
    rpcAnswers({ get_p2p_board: { error: { message: 'boom' } } })
    await renderSignedIn(<OfferBoard userId={me} />)
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load offers')
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument()
  })
})
