import { screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { loadSwahili, setLanguage } from '@/lib/i18n/i18n'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const userId = session.user.id
const flatId = '11111111-1111-4111-8111-111111111111'
const goneId = '22222222-2222-4222-8222-222222222222'
const tableId = '33333333-3333-4333-8333-333333333333'
const tradeId = '44444444-4444-4444-8444-444444444444'

function historyRow(id: number, overrides: object) {
  return { id, user_id: userId, currency: 'nestcoins', reference: null, memo: null, trade_id: null, created_at: `2026-11-${String(10 + (id % 10)).padStart(2, '0')}T09:00:00Z`, ...overrides }
}

const historyRows = [
  historyRow(9, { kind: 'listing_fee', amount: -196, reference: `property:${flatId}`, memo: '7 days at 28 Nestcoins per day' }),
  historyRow(8, { kind: 'escrow_lock', amount: -50, reference: `trade:${tradeId}`, trade_id: tradeId }),
  historyRow(7, { kind: 'purchase', amount: 275, reference: 'SGH7K2LQ9P', memo: 'Nestcoin purchase' }),
  historyRow(6, { kind: 'issuance', amount: 300, currency: 'keys', reference: `user:${userId}`, memo: 'Demo opening balance' }),
]

/** The listing fee postings behind "Listing fees paid per listing". */
const feeRows = [
  { kind: 'listing_fee', amount: -196, reference: `property:${flatId}`, created_at: '2026-11-19T09:00:00Z' },
  { kind: 'listing_refund', amount: 84, reference: `property:${flatId}`, created_at: '2026-11-18T09:00:00Z' },
  { kind: 'listing_fee', amount: -84, reference: `property:${flatId}`, created_at: '2026-11-17T09:00:00Z' },
  { kind: 'listing_fee', amount: -252, reference: `product:${tableId}`, created_at: '2026-11-16T09:00:00Z' },
  { kind: 'listing_fee', amount: -60, reference: `land:${goneId}`, created_at: '2026-11-15T09:00:00Z' },
]

type Answers = {
  balances?: unknown
  history?: (request: Request) => unknown
  fees?: unknown
}

const isFeeRead = (request: Request) => request.calls.some(([method, column]) => method === 'in' && column === 'kind')

function answer({ balances, history, fees }: Answers = {}) {
  fake.respondWith((request: Request) => {
    if (request.table === 'wallets')
      return (balances ?? { data: [{ currency: 'nestcoins', balance: 4972 }, { currency: 'crystals', balance: 1200 }, { currency: 'keys', balance: 300 }] }) as { data: unknown }
    if (request.table === 'wallet_history') {
      if (isFeeRead(request)) return (fees ?? { data: feeRows }) as { data: unknown }
      return (history ? history(request) : { data: historyRows, count: historyRows.length }) as { data: unknown }
    }
    if (request.table === 'properties') return { data: [{ id: flatId, title: 'Kilimani bedsitter' }] }
    if (request.table === 'products') return { data: [{ id: tableId, title: 'Oak dining table' }] }
    if (request.table === 'nestcoin_packages') return { data: [{ id: '5b1e0000-0000-4000-8000-000000000004', name: 'Side Hustle', coins: 275, price: 500 }] }
    return { data: [] }
  })
}

const historyReads = () => fake.requestsOf('wallet_history').filter((request) => !isFeeRead(request))

beforeEach(() => {
  fake.requests.length = 0
  fake.client.rpc.mockReset()
  answer()
})

afterEach(() => setLanguage('en'))

describe('/wallet', () => {
  it('sends a signed-out visitor to /login, remembering the page', async () => {
    const { router } = await renderApp('/wallet?kind=purchase')
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/wallet?kind=purchase' })
    expect(fake.requestsOf('wallets')).toHaveLength(0)
  })

  it('shows the balance of each currency from the own wallets rows', async () => {
    await renderApp('/wallet', { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'My Wallet' })).toBeInTheDocument()
    const nestcoins = await screen.findByText('4,972')
    expect(nestcoins.previousElementSibling).toHaveTextContent('Nestcoins')
    expect(screen.getByText('1,200').previousElementSibling).toHaveTextContent('Crystals')
    expect(screen.getByText('300').previousElementSibling).toHaveTextContent('Keys')
    const read = fake.requestsOf('wallets')[0]
    expect(read.calls).toContainEqual(['eq', 'user_id', userId])
    expect(read.calls).toContainEqual(['eq', 'kind', 'user'])
  })

  it('shows an error with Try Again when the balances fail', async () => {
    let fail = true
    fake.respondWith((request: Request) => {
      if (request.table !== 'wallets') return { data: [], count: 0 }
      return fail ? Promise.reject(new Error('boom')) : { data: [{ currency: 'nestcoins', balance: 12 }] }
    })
    const { user } = await renderApp('/wallet', { session })
    const alert = await screen.findByText('Failed to load your balances')
    fail = false
    await user.click(within(alert.closest('[role=alert]') as HTMLElement).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByText('12')).toBeInTheDocument()
  })

  it('lists the history newest first with signed amounts, kinds and what each posting was about', async () => {
    await renderApp('/wallet', { session })
    const table = await screen.findByRole('table', { name: 'History' })
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows).toHaveLength(4)
    expect(rows[0]).toHaveTextContent('Listing fee')
    expect(rows[0]).toHaveTextContent('-196 Nestcoins')
    expect(rows[0]).toHaveTextContent('7 days at 28 Nestcoins per day')
    // The listing's title comes from the fees section's read of its table.
    expect(await within(rows[0]).findByRole('link', { name: 'Kilimani bedsitter' })).toHaveAttribute('href', `/properties/${flatId}`)
    expect(within(rows[1]).getByRole('link', { name: 'P2P trade' })).toHaveAttribute('href', `/p2p/trades/${tradeId}`)
    expect(rows[1]).toHaveTextContent('Escrow lock')
    expect(rows[2]).toHaveTextContent('+275 Nestcoins')
    expect(rows[2]).toHaveTextContent('M-Pesa receipt SGH7K2LQ9P')
    expect(rows[3]).toHaveTextContent('Issuance / adjustment')
    expect(rows[3]).toHaveTextContent('+300 Keys')
    expect(within(rows[3]).getByText('Received 300 Keys')).toHaveClass('sr-only')
    expect(screen.getByText('4 transactions')).toBeInTheDocument()

    const read = historyReads()[0]
    expect(read.calls).toContainEqual(['select', 'id, user_id, currency, kind, amount, reference, memo, trade_id, created_at', { count: 'exact' }])
    expect(read.calls).toContainEqual(['eq', 'user_id', userId])
    expect(read.calls).toContainEqual(['order', 'created_at', { ascending: false }])
    expect(read.calls).toContainEqual(['range', 0, 11])
  })

  it('filters by currency and kind on the server, through the URL', async () => {
    const { user, router } = await renderApp('/wallet?currency=crystals&kind=escrow_lock&page=2', {
      session,
    })
    await screen.findByRole('heading', { level: 1, name: 'My Wallet' })
    await waitFor(() => expect(historyReads().length).toBeGreaterThan(0))
    const first = historyReads()[0]
    expect(first.calls).toContainEqual(['eq', 'currency', 'crystals'])
    expect(first.calls).toContainEqual(['eq', 'kind', 'escrow_lock'])
    expect(first.calls).toContainEqual(['range', 12, 23])
    expect(screen.getByLabelText('Currency')).toHaveValue('crystals')
    expect(screen.getByLabelText('Type')).toHaveValue('escrow_lock')

    await user.selectOptions(screen.getByLabelText('Type'), 'listing_fee')
    await waitFor(() => expect(router.state.location.search).toBe('?currency=crystals&kind=listing_fee'))
    await waitFor(() => expect(historyReads().at(-1)!.calls).toContainEqual(['eq', 'kind', 'listing_fee']))
    expect(historyReads().at(-1)!.calls).toContainEqual(['range', 0, 11])

    await user.click(screen.getAllByRole('button', { name: 'Clear filters' })[0])
    await waitFor(() => expect(router.state.location.search).toBe(''))
    const last = historyReads().at(-1)!
    expect(last.calls.some(([method, column]) => method === 'eq' && (column === 'kind' || column === 'currency'))).toBe(false)
  })

  it('ignores unknown filter values in the URL', async () => {
    await renderApp('/wallet?currency=gold&kind=theft', { session })
    await screen.findByRole('table', { name: 'History' })
    const read = historyReads()[0]
    expect(read.calls.some(([method, column]) => method === 'eq' && (column === 'kind' || column === 'currency'))).toBe(false)
    expect(screen.getByLabelText('Currency')).toHaveValue('')
  })

  it('paginates on the server with the total count', async () => {
    answer({ history: () => ({ data: historyRows, count: 30 }) })
    const { user, router } = await renderApp('/wallet', { session })
    await screen.findByRole('table', { name: 'History' })
    expect(screen.getByText('30 transactions')).toBeInTheDocument()
    expect(screen.getByText('Page 1 of 3')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: /Next/ }))
    await waitFor(() => expect(router.state.location.search).toBe('?page=2'))
    await waitFor(() => expect(historyReads().at(-1)!.calls).toContainEqual(['range', 12, 23]))
  })

  it('shows the empty history, and the filtered empty state with Clear filters', async () => {
    answer({ history: () => ({ data: [], count: 0 }), fees: { data: [] } })
    const { user, router } = await renderApp('/wallet', { session })
    expect(await screen.findByRole('heading', { name: 'No transactions yet' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: "You haven't paid any listing fees yet" })).toBeInTheDocument()
    await user.selectOptions(screen.getByLabelText('Currency'), 'keys')
    expect(await screen.findByRole('heading', { name: 'No transactions match these filters' })).toBeInTheDocument()
    const empty = screen.getByRole('heading', { name: 'No transactions match these filters' }).parentElement as HTMLElement
    await user.click(within(empty).getByRole('button', { name: 'Clear filters' }))
    await waitFor(() => expect(router.state.location.search).toBe(''))
  })

  it('shows the history error with Try Again', async () => {
    let fail = true
    answer({ history: () => (fail ? Promise.reject(new Error('boom')) : { data: historyRows, count: 4 }) })
    const { user } = await renderApp('/wallet', { session })
    const message = await screen.findByText('Failed to load your wallet history')
    fail = false
    await user.click(within(message.closest('[role=alert]') as HTMLElement).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('table', { name: 'History' })).toBeInTheDocument()
  })

  it('sums the listing fees per listing, with titles read per table and deleted listings named so', async () => {
    await renderApp('/wallet', { session })
    const table = await screen.findByRole('table', { name: 'Listing fees paid per listing' })
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows).toHaveLength(3)
    const [flat, diningTable, gone] = rows
    expect(within(flat).getByRole('link', { name: 'Kilimani bedsitter' })).toHaveAttribute('href', `/properties/${flatId}`)
    expect(within(flat).getByRole('link', { name: 'My page' })).toHaveAttribute('href', '/my-properties')
    // 196 + 84 paid in two payments, 84 refunded: 196 net.
    const figures = within(flat)
      .getAllByRole('cell')
      .map((cell) => [cell.firstElementChild?.textContent, cell.lastElementChild?.textContent])
    expect(figures).toEqual([
      ['Paid', '2802 payments'],
      ['Refunded', '84'],
      ['Net', '196'],
      ['Last payment', expect.any(String)],
    ])
    expect(within(diningTable).getByRole('link', { name: 'Oak dining table' })).toHaveAttribute('href', `/marketplace/${tableId}`)
    expect(gone).toHaveTextContent('Deleted listing')
    expect(within(gone).queryByRole('link')).not.toBeInTheDocument()

    expect(fake.requestsOf('properties')[0].calls).toContainEqual(['in', 'id', [flatId]])
    expect(fake.requestsOf('products')[0].calls).toContainEqual(['select', 'id, title:name'])
    expect(fake.requestsOf('lands')[0].calls).toContainEqual(['in', 'id', [goneId]])
    expect(fake.requestsOf('service_providers')).toHaveLength(0)
  })

  it('opens the packages sheet, whose Buy Now leads to the M-Pesa pay step (nothing is called before Pay)', async () => {
    const { user } = await renderApp('/wallet', { session })
    await user.click(await screen.findByRole('button', { name: 'Buy Nestcoins' }))
    const sheet = await screen.findByRole('dialog', { name: 'Purchase Nestcoins' })
    const before = fake.requests.length
    await user.click(await within(sheet).findByRole('button', { name: 'Buy Side Hustle' }))
    expect(within(sheet).getByRole('heading', { name: 'Pay with M-Pesa' })).toBeInTheDocument()
    expect(within(sheet).getByLabelText('M-Pesa phone number')).toBeInTheDocument()
    expect(within(sheet).getByRole('button', { name: /^Pay Ksh.500 with M-Pesa$/ })).toBeEnabled()
    expect(fake.client.rpc).not.toHaveBeenCalled()
    expect(fake.channels.filter((channel) => channel.bindings.some((binding) => binding.filter.table === 'nestcoin_purchases'))).toEqual([])
    expect(fake.requests.slice(before).filter((request) => request.calls[0]?.[0] !== 'select')).toEqual([])
    await user.click(within(sheet).getByRole('button', { name: 'Back to packages' }))
    expect(within(sheet).getByRole('button', { name: 'Buy Side Hustle' })).toBeInTheDocument()
  })

  it('speaks Kiswahili', async () => {
    setLanguage('sw')
    await loadSwahili()
    await renderApp('/wallet', { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'Pochi Yangu' })).toBeInTheDocument()
    expect(await screen.findByRole('table', { name: 'Historia' })).toHaveTextContent('Ada ya tangazo')
  })
})
