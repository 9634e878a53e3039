import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Call, Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const userId = session.user.id

const has = (calls: Call[], ...call: unknown[]) => calls.some((c) => JSON.stringify(c) === JSON.stringify(call))

/** The number each HEAD count answers, decided from its filters, so a wrong filter shows up as a wrong number. */
function countFor(request: Request): number {
  const { table, calls } = request
  const base = { properties: 100, products: 200, lands: 300, service_providers: 400 }[table as 'properties']
  if (base !== undefined) {
    if (calls.some(([m, c]) => m === 'gte' && c === 'paid_until')) return base + 5
    if (has(calls, 'eq', 'is_active', true)) return base + 1
    if (has(calls, 'eq', 'payment_status', 'pending')) return base + 2
    if (has(calls, 'eq', 'payment_status', 'unpaid')) return base + 3
    if (has(calls, 'eq', 'payment_status', 'rejected')) return base + 4
    return -1
  }
  if (table === 'p2p_offers') {
    if (calls.some(([m, c]) => m === 'gte' && c === 'expires_at')) return 7
    if (has(calls, 'eq', 'status', 'active')) return 8
    return 9
  }
  if (table === 'p2p_trades') return 3
  return -1
}

function answer(fail = false) {
  fake.respondWith((request: Request) => {
    if (fail) return Promise.reject(new Error('boom'))
    if (request.table === 'wallets') return { data: { balance: 4972 } }
    return { data: null, count: countFor(request) }
  })
}

beforeEach(() => {
  fake.requests.length = 0
  answer()
})

/** The number shown beside a label in a card. */
function countIn(card: HTMLElement, label: string): string | null | undefined {
  return within(card).getByText(label, { selector: 'dt' }).nextElementSibling?.textContent
}

describe('the /home dashboard', () => {
  it('is not there for a visitor, who loads and asks nothing', async () => {
    await renderApp('/home')
    expect(await screen.findByRole('heading', { level: 1 })).toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'Your dashboard' })).not.toBeInTheDocument()
    expect(fake.requests).toHaveLength(0)
  })

  it('summarises the My pages with count-only requests, each card linking to its page', async () => {
    await renderApp('/home', { session })
    const section = await screen.findByRole('region', { name: 'Your dashboard' })
    const properties = await within(section).findByRole('article', { name: 'My Properties' })
    expect(countIn(properties, 'Active')).toBe('101')
    expect(countIn(properties, 'Pending approval')).toBe('102')
    expect(countIn(properties, 'Unpaid drafts to continue')).toBe('103')
    expect(countIn(properties, 'Rejected')).toBe('104')
    expect(countIn(properties, 'Expiring within 3 days')).toBe('105')
    expect(within(properties).getByRole('link', { name: 'My Properties' })).toHaveAttribute('href', '/my-properties')
    expect(within(properties).getByRole('link', { name: 'Continue' })).toHaveAttribute('href', '/my-properties')

    expect(countIn(within(section).getByRole('article', { name: 'My Products' }), 'Active')).toBe('201')
    expect(countIn(within(section).getByRole('article', { name: 'My Lands' }), 'Rejected')).toBe('304')
    const services = within(section).getByRole('article', { name: 'My Services' })
    expect(countIn(services, 'Pending approval')).toBe('402')
    expect(within(services).getByRole('link', { name: 'My Services' })).toHaveAttribute('href', '/my-services')

    const offers = within(section).getByRole('article', { name: 'My P2P Offers' })
    expect(countIn(offers, 'Active')).toBe('8')
    expect(countIn(offers, 'Expiring within 3 days')).toBe('7')
    expect(countIn(offers, 'All offers')).toBe('9')
    expect(within(offers).getByRole('link', { name: 'My P2P Offers' })).toHaveAttribute('href', '/my-p2p-offers')

    const balance = within(section).getByRole('article', { name: 'Nestcoin balance' })
    expect(balance).toHaveTextContent('4,972')
    expect(within(balance).getByRole('link', { name: 'Open wallet' })).toHaveAttribute('href', '/wallet')
    const trades = within(section).getByRole('article', { name: 'Open P2P trades' })
    expect(trades).toHaveTextContent('3')
    expect(within(trades).getByRole('link', { name: 'View trades' })).toHaveAttribute('href', '/p2p/trades')

    // Every number is a HEAD count of the user's own rows. The top bar's
    // unread badges (notifications, conversation_list) may ask too, in
    // their own time, so only the dashboard's tables are counted here.
    const dashboardTables = ['properties', 'products', 'lands', 'service_providers', 'p2p_offers', 'p2p_trades']
    const counts = fake.requests.filter((request) => dashboardTables.includes(request.table))
    expect(counts).toHaveLength(4 * 5 + 3 + 1)
    for (const request of counts) expect(request.calls[0]).toEqual(['select', 'id', { count: 'exact', head: true }])
    expect(fake.requestsOf('lands').every((request) => has(request.calls, 'eq', 'userid', userId))).toBe(true)
    expect(fake.requestsOf('properties').every((request) => has(request.calls, 'eq', 'user_id', userId))).toBe(true)
    const trade = fake.requestsOf('p2p_trades')[0]
    expect(trade.calls).toContainEqual(['or', `buyer_id.eq.${userId},seller_id.eq.${userId}`])
    expect(trade.calls).toContainEqual(['in', 'status', ['escrow_locked', 'paid', 'disputed']])
    const expiring = fake.requestsOf('properties').find((request) => request.calls.some(([m]) => m === 'lte'))!
    const [, , from] = expiring.calls.find(([m]) => m === 'gte')!
    const [, , to] = expiring.calls.find(([m]) => m === 'lte')!
    expect(Date.parse(to as string) - Date.parse(from as string)).toBe(3 * 86_400_000)
  })

  it('shows an error with Try Again', async () => {
    answer(true)
    const { user } = await renderApp('/home', { session })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load your dashboard')
    answer()
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }))
    await waitFor(() => expect(screen.getByRole('article', { name: 'Nestcoin balance' })).toHaveTextContent('4,972'))
  })
})
