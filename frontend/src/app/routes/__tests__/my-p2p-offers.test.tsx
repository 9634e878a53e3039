import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { loadSwahili, setLanguage } from '@/lib/i18n/i18n'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const userId = session.user.id
const inTwoDays = new Date(Date.now() + 2 * 86_400_000).toISOString()
const lastWeek = new Date(Date.now() - 7 * 86_400_000).toISOString()

function offer(id: string, overrides: object = {}) {
  return {
    id,
    user_id: userId,
    action: 'sell',
    currency: 'nestcoins',
    amount: 600,
    rate_per_unit: 1.95,
    min_limit: 20,
    max_limit: 200,
    payment_methods: ['M-Pesa', 'Bank Transfer'],
    auto_cancel_duration: '7 days',
    expires_at: inTwoDays,
    status: 'active',
    filled_amount: 190,
    remaining_amount: 410,
    created_at: '2026-11-20T08:00:00Z',
    updated_at: '2026-11-20T08:00:00Z',
    ...overrides,
  }
}

type Answer = { offers?: (request: Request) => unknown; remove?: (request: Request) => unknown; openTrades?: number }

function answer({ offers, remove, openTrades = 0 }: Answer = {}) {
  fake.respondWith((request: Request) => {
    if (request.table === 'p2p_trades') return { data: null, count: openTrades }
    if (request.table !== 'p2p_offers') return { data: [] }
    if (request.calls[0]?.[0] === 'delete') return (remove ? remove(request) : { data: null }) as { data: unknown }
    return (offers ? offers(request) : { data: [offer('o1'), offer('o2', { action: 'buy', currency: 'keys', amount: 40, remaining_amount: 40, filled_amount: 0, rate_per_unit: '25.5', status: 'expired', expires_at: lastWeek })] }) as { data: unknown }
  })
}

/** An accessible name with any kind of space where `text` has one (Intl puts a no-break space in 'Ksh 1.95'). */
const named = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s')}$`)
const actionsOf = (label: string) => screen.getByRole('group', { name: named(`Actions for ${label}`) })
const deletes = () => fake.requestsOf('p2p_offers').filter((request) => request.calls[0]?.[0] === 'delete')

beforeEach(() => {
  fake.requests.length = 0
  answer()
})

afterEach(() => setLanguage('en'))

describe('/my-p2p-offers', () => {
  it('tells a signed-out visitor to log in, with a link that returns here', async () => {
    const { user, router } = await renderApp('/my-p2p-offers')
    expect(await screen.findByText('You must be logged in to view your P2P offers.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'My P2P Offers' })).toBeInTheDocument()
    expect(fake.requestsOf('p2p_offers')).toHaveLength(0)
    await user.click(screen.getByRole('link', { name: 'Sign in' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/my-p2p-offers' })
  })

  it("shows the user's own offers of every status, newest first, as cards", async () => {
    await renderApp('/my-p2p-offers', { session })
    const sell = await screen.findByRole('article', { name: named('Sell 600 Nestcoins at Ksh 1.95') })
    const read = fake.requestsOf('p2p_offers')[0]
    expect(read.calls).toContainEqual(['eq', 'user_id', userId])
    expect(read.calls).toContainEqual(['order', 'created_at', { ascending: false }])
    expect(read.calls.some(([method, column]) => method === 'eq' && column === 'status')).toBe(false)

    const facts = (card: HTMLElement) =>
      Object.fromEntries(
        within(card)
          .getAllByRole('term')
          .map((term) => [term.textContent, term.nextElementSibling?.textContent?.replace(/\s/g, ' ')]),
      )
    expect(facts(sell)).toEqual({
      Amount: '600 Nestcoins',
      Remaining: '410',
      'Rate per unit': 'Ksh 1.95',
      'Limits per trade': '20 – 200',
      'Payment methods': 'M-PesaBank Transfer',
    })
    expect(within(sell).getByText('Active')).toBeInTheDocument()
    expect(within(sell).getByText('Your Offer')).toBeInTheDocument()
    expect(within(sell).getByText(/^Expires /)).toBeInTheDocument()

    const buy = screen.getByRole('article', { name: named('Buy 40 Keys at Ksh 25.50') })
    expect(facts(buy)['Rate per unit']).toBe('Ksh 25.50')
    expect(within(buy).getByText('Expired', { selector: '[data-slot=badge]' })).toBeInTheDocument()
    expect(within(buy).getByText(/^Expired \d/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Create Offer' })).toHaveAttribute('href', '/p2p')
  })

  it('shows the loading, error (with Try Again) and empty states', async () => {
    let release!: () => void
    let fail = true
    const ready = new Promise<void>((resolve) => (release = resolve))
    answer({ offers: () => ready.then(() => (fail ? Promise.reject(new Error('boom')) : { data: [] })) })
    const { user } = await renderApp('/my-p2p-offers', { session })
    expect(await screen.findByText('Loading your offers...', { selector: 'p' })).toBeInTheDocument()
    release()
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load your offers.')
    fail = false
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('heading', { name: "You haven't created any P2P offers yet" })).toBeInTheDocument()
    expect(screen.getAllByRole('link', { name: 'Create Offer' }).every((link) => link.getAttribute('href') === '/p2p')).toBe(true)
  })

  it('deletes only after confirmation, both buttons disabled while deleting', async () => {
    let finish!: () => void
    answer({ remove: () => new Promise((resolve) => (finish = () => resolve({ data: null }))) })
    const { user } = await renderApp('/my-p2p-offers', { session })
    await screen.findByRole('article', { name: named('Sell 600 Nestcoins at Ksh 1.95') })

    await user.click(within(actionsOf('Sell 600 Nestcoins at Ksh 1.95')).getByRole('button', { name: 'Delete' }))
    let dialog = await screen.findByRole('dialog', { name: 'Delete this offer?' })
    expect(dialog).toHaveTextContent('Your offer to sell 600 Nestcoins will be removed.')
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(deletes()).toHaveLength(0)

    await user.click(within(actionsOf('Sell 600 Nestcoins at Ksh 1.95')).getByRole('button', { name: 'Delete' }))
    dialog = await screen.findByRole('dialog', { name: 'Delete this offer?' })
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Deleting...' })).toBeDisabled())
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeDisabled()
    expect(deletes()[0].calls).toContainEqual(['eq', 'id', 'o1'])
    finish()
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(visibleToasts()[0]).toHaveTextContent('Offer deleted successfully!')
    // The list is read again after the delete.
    await waitFor(() => expect(fake.requestsOf('p2p_offers').filter((request) => request.calls[0]?.[0] === 'select')).toHaveLength(2))
  })

  it("shows the database's refusal in the dialog and a toast, keeping the offer", async () => {
    answer({ remove: () => Promise.reject(new Error('This offer has open trades')) })
    const { user } = await renderApp('/my-p2p-offers', { session })
    await user.click(within(await screen.findByRole('group', { name: named('Actions for Sell 600 Nestcoins at Ksh 1.95') })).getByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete this offer?' })
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('This offer has open trades')
    expect(screen.getByText('Failed to delete offer')).toBeInTheDocument()
    expect(within(dialog).getByRole('button', { name: 'Delete' })).toBeEnabled()
  })

  it('says how many trades stay open on the offer', async () => {
    answer({ openTrades: 2 })
    const { user } = await renderApp('/my-p2p-offers', { session })
    await user.click(within(await screen.findByRole('group', { name: named('Actions for Sell 600 Nestcoins at Ksh 1.95') })).getByRole('button', { name: 'Delete' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete this offer?' })
    expect(await within(dialog).findByRole('status')).toHaveTextContent('It has 2 open trades.')
    const count = fake.requestsOf('p2p_trades')[0]
    expect(count.calls).toContainEqual(['select', 'id', { count: 'exact', head: true }])
    expect(count.calls).toContainEqual(['eq', 'offer_id', 'o1'])
    expect(count.calls).toContainEqual(['in', 'status', ['escrow_locked', 'paid', 'disputed']])
  })

  it('speaks Kiswahili', async () => {
    setLanguage('sw')
    await loadSwahili()
    await renderApp('/my-p2p-offers')
    expect(await screen.findByText('Lazima uingie ili kuona ofa zako za P2P.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Ingia' })).toBeInTheDocument()
  })
})
