import { screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'

import type { BoardOffer } from '../../api/get-board'
import { me, other, renderSignedIn, rpcAnswers } from './helpers'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { TradeForm } = await import('../trade-dialog')

const offer: BoardOffer = {
  id: 'offer-1',
  user_id: other,
  action: 'sell',
  currency: 'nestcoins',
  amount: 500,
  filled_amount: 470,
  remaining_amount: 30,
  rate_per_unit: 12.5,
  min_limit: 10,
  max_limit: 100,
  payment_methods: ['M-Pesa', 'Bank Transfer'],
  auto_cancel_duration: '1 day',
  expires_at: '2099-01-01T00:00:00Z',
  created_at: '2026-01-01T00:00:00Z',
  owner_name: 'Otieno',
  owner_kyc_verified: true,
  owner_completed_trades: 3,
  owner_completion_rate: 1,
  owner_rating_avg: 4.5,
  owner_rating_count: 2,
}

beforeEach(() => {
  fake.client.rpc.mockReset()
  fake.respondWith(() => ({ data: { balance: 1000 } }))
})

describe('TradeForm (spec §5)', () => {
  it('shows the total in KES with 2 decimals as the amount changes', async () => {
    const { user } = await renderSignedIn(<TradeForm offer={offer} userId={me} onCancel={() => {}} />)
    const amount = screen.getByLabelText('Amount (10 – 100)')
    expect(amount).toHaveValue(30)
    await user.clear(amount)
    await user.type(amount, '40')
    expect(screen.getByTestId('trade-total')).toHaveTextContent(/Total: Ksh\s?500\.00/)
  })

  it('refuses an amount outside the limits and a missing payment method, sending nothing', async () => {
    const { user } = await renderSignedIn(<TradeForm offer={offer} userId={me} onCancel={() => {}} />)
    const amount = screen.getByLabelText('Amount (10 – 100)')
    await user.clear(amount)
    await user.type(amount, '101')
    await user.click(screen.getByRole('button', { name: 'Start trade' }))
    expect(await screen.findByText('Amount must be between 10 and 100')).toBeInTheDocument()
    expect(screen.getByText('Choose a payment method')).toBeInTheDocument()
    expect(fake.client.rpc).not.toHaveBeenCalled()
  })

  it('opens the trade at the rate shown, with the method, and goes to the trade page', async () => {
    rpcAnswers({ open_p2p_trade: { id: 'trade-9' } })
    const { user, router } = await renderSignedIn(<TradeForm offer={offer} userId={me} onCancel={() => {}} />)
    await user.selectOptions(screen.getByLabelText('Payment method'), 'M-Pesa')
    await user.click(screen.getByRole('button', { name: 'Start trade' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/p2p/trades/trade-9'))
    expect(fake.client.rpc).toHaveBeenCalledWith(
      'open_p2p_trade',
      expect.objectContaining({ p_offer_id: 'offer-1', p_amount: 30, p_expected_rate: 12.5, p_payment_method: 'M-Pesa', p_payment_instructions: null }),
    )
    // The buyer does not give payment instructions.
    expect(screen.queryByLabelText('Where should the buyer pay you?')).not.toBeInTheDocument()
  })

  it.each([
    ['Only 30 nestcoins left on this offer', undefined],
    ['You cannot trade on your own offer', undefined],
    ['The seller does not have enough nestcoins for this trade', undefined],
    ['The price of this offer has changed', 'You saw 12.50 KES per unit; the offer now asks 13.00 KES per unit. Review the new price and try again.'],
  ])("shows the server's refusal verbatim: %s", async (message, details) => {
    rpcAnswers({ open_p2p_trade: { error: { message, details } } })
    const { user, router } = await renderSignedIn(<TradeForm offer={offer} userId={me} onCancel={() => {}} />)
    await user.selectOptions(screen.getByLabelText('Payment method'), 'Bank Transfer')
    await user.click(screen.getByRole('button', { name: 'Start trade' }))
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent(message)
    if (details) expect(alert).toHaveTextContent(details)
    expect(router.state.location.pathname).toBe('/')
  })

  it('on a buy offer the taker sells: shows their balance and takes payment instructions', async () => {
    rpcAnswers({ open_p2p_trade: { id: 'trade-10' } })
    const { user } = await renderSignedIn(<TradeForm offer={{ ...offer, action: 'buy', payment_methods: ['M-Pesa'] }} userId={me} onCancel={() => {}} />)
    expect(await screen.findByText('Your Nestcoins balance: 1,000')).toBeInTheDocument()
    await user.type(screen.getByLabelText('Where should the buyer pay you?'), 'M-Pesa 0712 345 678')
    await user.click(screen.getByRole('button', { name: 'Start trade' }))
    await waitFor(() =>
      expect(fake.client.rpc).toHaveBeenCalledWith(
        'open_p2p_trade',
        expect.objectContaining({ p_payment_method: 'M-Pesa', p_payment_instructions: 'M-Pesa 0712 345 678' }),
      ),
    )
  })
})
