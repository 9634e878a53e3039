import { screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'

import { me, renderSignedIn } from './helpers'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { CreateOfferForm } = await import('../create-offer-dialog')
const { createOfferSchema } = await import('../../api/create-offer')

const valid = {
  action: 'sell',
  currency: 'nestcoins',
  amount: 100,
  rate_per_unit: 10,
  min_limit: 50,
  max_limit: 500,
  payment_methods: ['M-Pesa'],
  auto_cancel_duration: '1 day',
}

function messagesOf(input: unknown): string[] {
  const result = createOfferSchema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => issue.message)
}

describe('createOfferSchema (spec §5)', () => {
  it.each([
    [{ amount: 9 }, 'p2p.v.amountMin'],
    [{ amount: 10_001 }, 'p2p.v.amountMax'],
    [{ amount: 10.5 }, 'p2p.v.whole'],
    [{ rate_per_unit: 0 }, 'p2p.v.rate'],
    [{ min_limit: 0 }, 'p2p.v.minLimit'],
    [{ max_limit: 0 }, 'p2p.v.maxLimit'],
    [{ payment_methods: [] }, 'p2p.v.methods'],
    [{ min_limit: 600 }, 'p2p.v.limitsOrder'],
  ])('%j is refused with %s', (change, message) => {
    expect(messagesOf({ ...valid, ...change })).toContain(message)
  })

  it('accepts the boundaries', () => {
    expect(messagesOf({ ...valid, amount: 10, rate_per_unit: 0.01, min_limit: 1, max_limit: 1 })).toEqual([])
    expect(messagesOf({ ...valid, amount: 10_000, min_limit: 500, max_limit: 500 })).toEqual([])
  })
})

describe('CreateOfferForm', () => {
  beforeEach(() => {
    fake.requests.length = 0
    fake.respondWith(({ table, calls }) =>
      table === 'wallets' ? { data: { balance: 40 } } : calls.some(([m]) => m === 'insert') ? { data: { id: 'offer-1' } } : { data: [] },
    )
  })

  it('starts from the spec defaults and shows the balance backing a sell offer', async () => {
    await renderSignedIn(<CreateOfferForm userId={me} onDone={() => {}} />)
    expect(screen.getByLabelText('I want to')).toHaveValue('sell')
    expect(screen.getByLabelText('Currency')).toHaveValue('nestcoins')
    expect(screen.getByLabelText('Amount')).toHaveValue(100)
    expect(screen.getByLabelText('Rate per unit (KES)')).toHaveValue(10)
    expect(screen.getByLabelText('Minimum per trade')).toHaveValue(50)
    expect(screen.getByLabelText('Maximum per trade')).toHaveValue(500)
    expect(screen.getByLabelText('Auto-cancel after')).toHaveValue('1 day')
    expect(await screen.findByText('Your Nestcoins balance: 40')).toBeInTheDocument()
    expect(screen.getByText(/Your balance is below this amount/)).toBeInTheDocument()
  })

  it('shows every rule broken on submit and sends nothing', async () => {
    const { user } = await renderSignedIn(<CreateOfferForm userId={me} onDone={() => {}} />)
    await user.clear(screen.getByLabelText('Amount'))
    await user.type(screen.getByLabelText('Amount'), '5')
    await user.clear(screen.getByLabelText('Rate per unit (KES)'))
    await user.type(screen.getByLabelText('Rate per unit (KES)'), '0')
    await user.click(screen.getByRole('button', { name: 'Create Offer' }))
    expect(await screen.findByText('Minimum amount is 10')).toBeInTheDocument()
    expect(screen.getByText('Rate must be greater than 0')).toBeInTheDocument()
    expect(screen.getByText('Select at least one payment method')).toBeInTheDocument()
    expect(fake.requestsOf('p2p_offers')).toHaveLength(0)
  })

  it('refuses a minimum above the maximum', async () => {
    const { user } = await renderSignedIn(<CreateOfferForm userId={me} onDone={() => {}} />)
    await user.clear(screen.getByLabelText('Minimum per trade'))
    await user.type(screen.getByLabelText('Minimum per trade'), '600')
    await user.click(screen.getByLabelText('M-Pesa'))
    await user.click(screen.getByRole('button', { name: 'Create Offer' }))
    expect(await screen.findByText('Minimum limit cannot be greater than maximum limit')).toBeInTheDocument()
    expect(fake.requestsOf('p2p_offers')).toHaveLength(0)
  })

  it('inserts the offer, 24 hours stored as 1 day, and closes', async () => {
    const onDone = vi.fn()
    const { user } = await renderSignedIn(<CreateOfferForm userId={me} onDone={onDone} />)
    await user.selectOptions(screen.getByLabelText('I want to'), 'buy')
    await user.selectOptions(screen.getByLabelText('Currency'), 'keys')
    await user.click(screen.getByLabelText('M-Pesa'))
    await user.click(screen.getByLabelText('Airtel Money'))
    await user.click(screen.getByRole('button', { name: 'Create Offer' }))
    await waitFor(() => expect(onDone).toHaveBeenCalled())
    const insert = fake.requestsOf('p2p_offers')[0].calls.find(([m]) => m === 'insert')?.[1] as Record<string, unknown>
    expect(insert).toMatchObject({
      user_id: me,
      action: 'buy',
      currency: 'keys',
      amount: 100,
      rate_per_unit: 10,
      min_limit: 50,
      max_limit: 500,
      payment_methods: ['M-Pesa', 'Airtel Money'],
      auto_cancel_duration: '1 day',
    })
    expect(typeof insert.expires_at).toBe('string')
  })

  it("shows the server's refusal verbatim and stays open", async () => {
    fake.respondWith(({ table }) => {
      if (table === 'p2p_offers') throw Object.assign(new Error('Your account is suspended'), { code: '42501' })
      return { data: { balance: 500 } }
    })
    const onDone = vi.fn()
    const { user } = await renderSignedIn(<CreateOfferForm userId={me} onDone={onDone} />)
    await user.click(screen.getByLabelText('T-Kash'))
    await user.click(screen.getByRole('button', { name: 'Create Offer' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Your account is suspended')
    expect(onDone).not.toHaveBeenCalled()
  })
})
