import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'

import type { Trade, TradeRating } from '../../api/get-trade'
import { me, other, renderSignedIn, rpcAnswers } from './helpers'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))
// The realtime channel is exercised end to end (e2e/test/p2p.test.mjs).
vi.mock('../../api/realtime', () => ({ useTradeRealtime: vi.fn(), useMyTradesRealtime: vi.fn(), useBoardRealtime: vi.fn() }))

const { TradeView } = await import('../trade-view')

const inHalfAnHour = () => new Date(Date.now() + 30 * 60_000).toISOString()

function trade(change: Partial<Trade> = {}): Trade {
  return {
    id: 'trade-1',
    offer_id: 'offer-1',
    offer_action: 'sell',
    taker_id: me,
    seller_id: other,
    buyer_id: me,
    currency: 'nestcoins',
    amount: 40,
    rate_per_unit: 12.5,
    total_kes: 500,
    status: 'escrow_locked',
    payment_deadline: inHalfAnHour(),
    payment_reference: null,
    release_deadline: null,
    created_at: '2026-01-01T10:00:00Z',
    updated_at: '2026-01-01T10:00:00Z',
    paid_at: null,
    closed_at: null,
    dispute_reason: null,
    disputed_by: null,
    resolution: null,
    resolution_notes: null,
    admin_flag: null,
    payment_method: 'M-Pesa',
    payment_instructions: 'M-Pesa 0712 345 678, Otieno',
    ...change,
  }
}

const asSeller = { seller_id: me, buyer_id: other, taker_id: other }

function serve(row: Trade | null, { ratings = [] as TradeRating[], fail = false } = {}) {
  fake.respondWith(({ table }) => {
    if (fail && table === 'p2p_trades') throw new Error('boom')
    switch (table) {
      case 'p2p_trades':
        return { data: row }
      case 'p2p_trade_events':
        return { data: [{ id: 1, trade_id: 'trade-1', from_status: null, to_status: 'escrow_locked', actor_id: me, actor_role: 'authenticated', created_at: '2026-01-01T10:00:00Z' }] }
      case 'p2p_trade_messages':
        return { data: [{ id: 'm1', trade_id: 'trade-1', sender_id: other, body: 'Karibu, pay to my M-Pesa', created_at: '2026-01-01T10:01:00Z' }] }
      case 'public_profiles':
        return { data: { id: other, full_name: 'Otieno', kyc_verified: true } }
      case 'p2p_trader_stats':
        return { data: { user_id: other, completed_trades: 7, completion_rate: 0.875, rating_avg: 4.5, rating_count: 4 } }
      case 'p2p_trade_ratings':
        return { data: ratings }
      default:
        return { data: [] }
    }
  })
}

async function renderTrade() {
  const result = await renderSignedIn(<TradeView tradeId="trade-1" userId={me} />)
  await screen.findByRole('heading', { level: 1 })
  return result
}

beforeEach(() => {
  fake.client.rpc.mockReset()
  fake.requests.length = 0
})

describe('TradeView', () => {
  it('awaiting payment, buyer: terms, instructions, countdown, chat; the M-Pesa code is format-checked', async () => {
    serve(trade())
    rpcAnswers({ mark_trade_paid: trade({ status: 'paid' }) })
    const { user } = await renderTrade()
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('You are buying 40 Nestcoins')
    expect(screen.getByTestId('trade-status')).toHaveTextContent('Awaiting payment')
    expect(await screen.findByTestId('counterparty-name')).toHaveTextContent('Otieno')
    expect(screen.getByRole('img', { name: 'KYC verified' })).toBeInTheDocument()
    expect(screen.getByText(/7 trades · 88% completion · 4\.5 ★ \(4\)/)).toBeInTheDocument()
    expect(screen.getByTestId('payment-instructions')).toHaveTextContent('M-Pesa 0712 345 678, Otieno')
    expect(screen.getByRole('timer', { name: 'Pay within' })).toHaveTextContent(/(29|30):\d\d/)
    expect(await screen.findByText('Karibu, pay to my M-Pesa')).toBeInTheDocument()
    expect(screen.getByText('Trade opened, coins locked in escrow')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Release coins' })).not.toBeInTheDocument()

    await user.type(screen.getByLabelText('M-Pesa code'), 'SGK3H8')
    await user.click(screen.getByRole('button', { name: 'I have paid' }))
    expect(await screen.findByText('Enter the 10-character M-Pesa code, e.g. SGK3H8PQ2X')).toBeInTheDocument()
    expect(fake.client.rpc).not.toHaveBeenCalled()

    await user.clear(screen.getByLabelText('M-Pesa code'))
    await user.type(screen.getByLabelText('M-Pesa code'), 'sgk3h8pq2x')
    await user.click(screen.getByRole('button', { name: 'I have paid' }))
    await waitFor(() => expect(fake.client.rpc).toHaveBeenCalledWith('mark_trade_paid', { p_trade_id: 'trade-1', p_payment_reference: 'SGK3H8PQ2X' }))
  })

  it("awaiting payment, buyer: a refusal shows the server's message verbatim", async () => {
    serve(trade())
    rpcAnswers({ mark_trade_paid: { error: { message: 'Only a trade awaiting payment can be marked as paid (this trade is paid)' } } })
    const { user } = await renderTrade()
    await user.type(screen.getByLabelText('M-Pesa code'), 'SGK3H8PQ2X')
    await user.click(screen.getByRole('button', { name: 'I have paid' }))
    expect(await within(screen.getByTestId('trade-state')).findByRole('alert')).toHaveTextContent(
      'Only a trade awaiting payment can be marked as paid (this trade is paid)',
    )
  })

  it('awaiting payment, buyer: cancelling asks first', async () => {
    serve(trade())
    rpcAnswers({ cancel_trade: trade({ status: 'cancelled' }) })
    const { user } = await renderTrade()
    await user.click(screen.getByRole('button', { name: 'Cancel trade' }))
    const dialog = await screen.findByRole('dialog', { name: 'Cancel this trade?' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel trade' }))
    await waitFor(() => expect(fake.client.rpc).toHaveBeenCalledWith('cancel_trade', { p_trade_id: 'trade-1' }))
  })

  it('awaiting payment, seller: waits, with the deadline, and writes payment instructions', async () => {
    serve(trade({ ...asSeller, payment_instructions: null }))
    rpcAnswers({ set_trade_payment_instructions: trade() })
    const { user } = await renderTrade()
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('You are selling 40 Nestcoins')
    expect(screen.getByText(/Wait for the buyer to pay Ksh\s?500\.00/)).toBeInTheDocument()
    expect(screen.getByRole('timer', { name: 'Pay within' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'I have paid' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Cancel trade' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Save instructions' }))
    expect(await screen.findByText('Say where the buyer should send the KES')).toBeInTheDocument()
    await user.type(screen.getByLabelText('Where should the buyer pay you?'), 'Till 552211')
    await user.click(screen.getByRole('button', { name: 'Save instructions' }))
    await waitFor(() =>
      expect(fake.client.rpc).toHaveBeenCalledWith('set_trade_payment_instructions', { p_trade_id: 'trade-1', p_instructions: 'Till 552211' }),
    )
  })

  it('paid, seller: the release dialog names the amount, then releases', async () => {
    serve(trade({ ...asSeller, status: 'paid', payment_reference: 'SGK3H8PQ2X', release_deadline: inHalfAnHour() }))
    rpcAnswers({ release_trade: trade({ status: 'completed' }) })
    const { user } = await renderTrade()
    expect(screen.getByText(/code SGK3H8PQ2X/)).toBeInTheDocument()
    expect(screen.getByRole('timer', { name: 'Seller must release within' })).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Release coins' }))
    const dialog = await screen.findByRole('dialog', { name: 'Release 40 Nestcoins?' })
    expect(dialog).toHaveTextContent(/Release 40 Nestcoins to Otieno only if Ksh\s?500\.00 has reached your account/)
    await user.click(within(dialog).getByRole('button', { name: 'Release 40 Nestcoins' }))
    await waitFor(() => expect(fake.client.rpc).toHaveBeenCalledWith('release_trade', { p_trade_id: 'trade-1' }))
  })

  it('paid, buyer: waits for release, cannot release, may open a dispute with a reason', async () => {
    serve(trade({ status: 'paid', payment_reference: 'SGK3H8PQ2X', release_deadline: inHalfAnHour() }))
    rpcAnswers({ dispute_trade: trade({ status: 'disputed' }) })
    const { user } = await renderTrade()
    expect(screen.getByText('Waiting for the seller to confirm your payment and release the coins.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Release coins' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Open dispute' }))
    const dialog = await screen.findByRole('dialog', { name: 'Open a dispute' })
    await user.type(within(dialog).getByLabelText('Reason'), 'Paid 30 minutes ago, no release')
    await user.click(within(dialog).getByRole('button', { name: 'Open dispute' }))
    await waitFor(() =>
      expect(fake.client.rpc).toHaveBeenCalledWith('dispute_trade', { p_trade_id: 'trade-1', p_reason: 'Paid 30 minutes ago, no release' }),
    )
  })

  it('paid but past the release deadline: the countdown says time is up', async () => {
    serve(trade({ status: 'paid', payment_reference: 'SGK3H8PQ2X', release_deadline: new Date(Date.now() - 1000).toISOString() }))
    await renderTrade()
    expect(screen.getByRole('timer', { name: 'Seller must release within' })).toHaveTextContent('Time is up')
  })

  it('completed: rates the counterparty once (stars required)', async () => {
    serve(trade({ status: 'completed' }))
    const { user } = await renderTrade()
    expect(screen.getByText('The coins are in your wallet.')).toBeInTheDocument()
    await screen.findByRole('heading', { name: 'Rate Otieno' })
    await user.click(screen.getByRole('button', { name: 'Submit rating' }))
    expect(await screen.findByText('Choose 1 to 5 stars')).toBeInTheDocument()
    await user.click(screen.getByRole('radio', { name: '4 stars' }))
    await user.type(screen.getByLabelText('Comment (optional)'), 'Fast payment')
    await user.click(screen.getByRole('button', { name: 'Submit rating' }))
    await waitFor(() => {
      const insert = fake.requestsOf('p2p_trade_ratings').flatMap((r) => r.calls).find(([m]) => m === 'insert')
      expect(insert?.[1]).toEqual({ trade_id: 'trade-1', stars: 4, comment: 'Fast payment' })
    })
  })

  it('completed and rated: shows both ratings instead of the form', async () => {
    const rating = (rater: string, stars: number): TradeRating => ({
      id: rater, trade_id: 'trade-1', rater_id: rater, ratee_id: rater === me ? other : me, stars, comment: null, created_at: '2026-01-01T11:00:00Z',
    })
    serve(trade({ ...asSeller, status: 'completed' }), { ratings: [rating(me, 5), rating(other, 3)] })
    await renderTrade()
    expect(await screen.findByTestId('my-rating')).toHaveTextContent('You rated Otieno 5 ★')
    expect(screen.getByText('Otieno rated you 3 ★')).toBeInTheDocument()
    expect(screen.getByText('You released the coins. Trade complete.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Submit rating' })).not.toBeInTheDocument()
  })

  it.each([
    [{ status: 'cancelled' }, 'The buyer cancelled this trade. The coins went back to the seller.'],
    [{ status: 'expired' }, 'The payment window lapsed. The coins went back to the seller.'],
    [{ status: 'disputed', dispute_reason: 'No money received' }, 'This trade is in dispute.'],
    [{ status: 'resolved', resolution: 'buyer', resolution_notes: 'Statement checked' }, 'in favour of the buyer'],
    [{ status: 'resolved', resolution: 'seller' }, 'in favour of the seller'],
  ] as [Partial<Trade>, string][])('%j shows its outcome and no actions', async (change, text) => {
    serve(trade(change))
    await renderTrade()
    expect(screen.getByTestId('trade-state')).toHaveTextContent(text)
    if (change.dispute_reason) expect(screen.getByText('Reason: No money received')).toBeInTheDocument()
    if (change.resolution_notes) expect(screen.getByText('Administrator notes: Statement checked')).toBeInTheDocument()
    for (const name of ['I have paid', 'Release coins', 'Cancel trade', 'Open dispute']) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument()
    }
  })

  it("a trade that is not the caller's: not found", async () => {
    serve(null)
    await renderSignedIn(<TradeView tradeId="trade-1" userId={me} />)
    expect(await screen.findByRole('heading', { name: 'Trade not found' })).toBeInTheDocument()
  })

  it('a failed load offers a retry', async () => {
    serve(trade(), { fail: true })
    await renderSignedIn(<TradeView tradeId="trade-1" userId={me} />)
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load this trade')
  })

  it('sends a chat message', async () => {
    serve(trade())
    const { user } = await renderTrade()
    await user.type(screen.getByLabelText('Message'), 'Sent, check please')
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => {
      const insert = fake.requestsOf('p2p_trade_messages').flatMap((r) => r.calls).find(([m]) => m === 'insert')
      expect(insert?.[1]).toEqual({ trade_id: 'trade-1', sender_id: me, body: 'Sent, check please' })
    })
  })
})
