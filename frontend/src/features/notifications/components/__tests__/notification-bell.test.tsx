import { act, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const me = session.user.id

const approved = {
  id: 7,
  user_id: me,
  kind: 'listing_approved',
  data: { listing_kind: 'property', listing_id: 'p1', title: 'Bedsitter in Kilimani', notes: null, paid_until: '2026-12-24T09:00:00+00:00' },
  link: '/my-properties',
  dedupe_key: null,
  read_at: null,
  created_at: '2026-11-20T10:00:00+00:00',
}
const message = {
  id: 6,
  user_id: me,
  kind: 'message',
  data: { conversation_id: 'c1', listing_title: 'Sofa', sender_name: 'Brian Otieno', preview: 'Is it available?' },
  link: '/messages/c1',
  dedupe_key: 'message:c1',
  read_at: '2026-11-19T10:00:00+00:00',
  created_at: '2026-11-19T09:00:00+00:00',
}

const isHead = (request: Request) => request.calls.some(([method, , options]) => method === 'select' && (options as { head?: boolean })?.head)

/** notifications: the list, the unread count (head) and updates; conversation_list: nothing. */
function answer(state: { rows: unknown[] | (() => Promise<never>); unread: number }) {
  fake.respondWith((request: Request) => {
    if (request.table !== 'notifications') return { data: [] }
    if (request.calls[0][0] === 'update') return { data: null }
    if (isHead(request)) return { data: null, count: state.unread }
    return typeof state.rows === 'function' ? state.rows() : { data: state.rows }
  })
}

const bell = (name: string | RegExp) => screen.findByRole('button', { name })

beforeEach(() => {
  fake.requests.length = 0
  fake.channels.length = 0
  fake.client.rpc.mockReset()
  answer({ rows: [approved, message], unread: 1 })
})

describe('notifications bell', () => {
  it('is not there for visitors, who load none of it', async () => {
    await renderApp('/home')
    expect(screen.queryByRole('button', { name: /^Notifications/ })).not.toBeInTheDocument()
    expect(fake.requestsOf('notifications')).toHaveLength(0)
  })

  it('shows the unread count and lists the newest notifications, worded', async () => {
    const { user } = await renderApp('/home', { session })
    await user.click(await bell('Notifications, 1 unread'))
    const menu = await screen.findByRole('menu')
    const items = within(menu).getAllByRole('menuitem')
    expect(items.map((item) => item.textContent)).toEqual([
      'Mark all read',
      expect.stringContaining('Listing approved"Bedsitter in Kilimani" is live until'),
      expect.stringContaining('New message from Brian OtienoSofa: Is it available?'),
    ])
    expect(items[1]).toHaveAttribute('data-unread')
    expect(items[2]).not.toHaveAttribute('data-unread')
    const list = fake.requestsOf('notifications').find((request) => !isHead(request))!
    expect(list.calls).toContainEqual(['order', 'created_at', { ascending: false }])
    expect(list.calls).toContainEqual(['limit', 20])
    const count = fake.requestsOf('notifications').find(isHead)!
    expect(count.calls).toContainEqual(['is', 'read_at', null])
  })

  it('marks a notification read and follows its link', async () => {
    const { user, router } = await renderApp('/home', { session })
    await user.click(await bell('Notifications, 1 unread'))
    await user.click(await screen.findByRole('menuitem', { name: /Listing approved/ }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/my-properties'))
    const update = fake.requestsOf('notifications').find((request) => request.calls[0][0] === 'update')!
    expect(update.calls[0][1]).toEqual({ read_at: expect.any(String) })
    expect(update.calls).toContainEqual(['eq', 'id', 7])
    expect(update.calls).toContainEqual(['is', 'read_at', null])
  })

  it('marks all read', async () => {
    const state = { rows: [approved, message] as unknown[], unread: 1 }
    answer(state)
    const { user } = await renderApp('/home', { session })
    await user.click(await bell('Notifications, 1 unread'))
    state.unread = 0
    await user.click(await screen.findByRole('menuitem', { name: 'Mark all read' }))
    await waitFor(() => expect(fake.requestsOf('notifications').some((request) => request.calls[0][0] === 'update')).toBe(true))
    const update = fake.requestsOf('notifications').find((request) => request.calls[0][0] === 'update')!
    expect(update.calls.filter(([method]) => method === 'eq')).toEqual([])
    expect(update.calls).toContainEqual(['is', 'read_at', null])
    expect(await bell('Notifications')).toBeInTheDocument()
  })

  it('says when there are none', async () => {
    answer({ rows: [], unread: 0 })
    const { user } = await renderApp('/home', { session })
    await user.click(await bell('Notifications'))
    expect(await within(await screen.findByRole('menu')).findByText('No notifications yet')).toBeInTheDocument()
    expect(screen.getByRole('menuitem', { name: 'Mark all read' })).toHaveAttribute('data-disabled')
  })

  it('shows a failure in the menu', async () => {
    answer({ rows: () => Promise.reject(new Error('offline')), unread: 0 })
    const { user } = await renderApp('/home', { session })
    await user.click(await bell('Notifications'))
    expect(await within(await screen.findByRole('menu')).findByRole('alert')).toHaveTextContent('Could not load notifications')
  })

  it('moves the count live when a notification arrives', async () => {
    const state = { rows: [message] as unknown[], unread: 0 }
    answer(state)
    await renderApp('/home', { session })
    await bell('Notifications')
    const channel = await waitFor(() => {
      const found = fake.channels.find((c) => c.topic.startsWith(`notifications:${me}`) && !c.removed)
      expect(found).toBeDefined()
      return found!
    })
    expect(channel.bindings.map((b) => b.filter)).toEqual([
      { event: '*', schema: 'public', table: 'notifications', filter: `user_id=eq.${me}` },
    ])
    state.rows = [approved, message]
    state.unread = 1
    act(() => channel.emit('notifications', { eventType: 'INSERT', new: approved, old: {} }))
    expect(await bell('Notifications, 1 unread')).toBeInTheDocument()
  })
})
