import { act, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession({ fullName: 'Wanjiku Kamau' })
const me = session.user.id
const brian = '0e5a0000-0000-4000-8000-000000000003'
const listingId = '0e5a0000-0000-4000-8000-0000000000b1'

const conversation = {
  id: 'c0000000-0000-4000-8000-000000000001',
  listing_kind: 'property',
  listing_id: listingId,
  listing_title: 'Bedsitter in Kilimani',
  my_role: 'owner',
  other_party_id: brian,
  other_party_name: 'Brian Otieno',
  last_message: 'Is it still available?',
  last_sender_id: brian,
  last_message_at: '2026-11-20T10:05:00+00:00',
  created_at: '2026-11-20T10:00:00+00:00',
  unread_count: 2,
}
const older = {
  ...conversation,
  id: 'c0000000-0000-4000-8000-000000000002',
  listing_kind: 'land',
  listing_title: 'Plot in Ruiru',
  other_party_name: 'Grace Achieng',
  last_message: 'Thank you',
  last_sender_id: me,
  last_message_at: '2026-11-19T08:00:00+00:00',
  unread_count: 0,
}

type Message = { id: string; conversation_id: string; sender_id: string; body: string; created_at: string }
const message = (id: string, sender: string, body: string, at: string): Message => ({
  id,
  conversation_id: conversation.id,
  sender_id: sender,
  body,
  created_at: at,
})

/** What each table answers; a function gets the request. */
type Tables = Partial<Record<'conversation_list' | 'messages' | 'notifications' | 'reports', unknown>>

function answer(tables: Tables) {
  fake.respondWith((request: Request) => {
    const value = tables[request.table as keyof Tables]
    if (typeof value === 'function') return value(request)
    const head = request.calls.some(([method, , options]) => method === 'select' && (options as { head?: boolean })?.head)
    if (head) return { data: null, count: 0 }
    const single = request.calls.some(([method]) => method === 'maybeSingle' || method === 'single')
    if (single && Array.isArray(value)) {
      const id = request.calls.find(([method, column]) => method === 'eq' && column === 'id')?.[2]
      return { data: value.find((row: { id: string }) => row.id === id) ?? null }
    }
    return { data: value ?? [] }
  })
}

/** The rpc calls the page makes (mark_conversation_read); each answers `data`. */
function rpcAnswers(answers: Record<string, unknown> = {}) {
  fake.client.rpc.mockImplementation((name: string) => {
    const request = {
      abortSignal: () => request,
      throwOnError: async () => {
        const value = answers[name]
        if (value instanceof Error) throw value
        return { data: value ?? null }
      },
    }
    return request
  })
}

const rpcCalls = (name: string) => fake.client.rpc.mock.calls.filter(([called]) => called === name)

beforeEach(() => {
  fake.requests.length = 0
  fake.channels.length = 0
  fake.client.rpc.mockReset()
  fake.client.channel.mockClear()
  rpcAnswers()
  answer({ conversation_list: [conversation, older], messages: [] })
})

describe('/messages guard', () => {
  it('sends a signed-out visitor to /login, remembering the conversation', async () => {
    const { router } = await renderApp(`/messages/${conversation.id}`)
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: `/messages/${conversation.id}` })
    await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('Please log in to continue with this action'))
  })
})

describe('/messages list', () => {
  it('shows a loading state, then the conversations newest first', async () => {
    let release!: () => void
    const ready = new Promise<void>((resolve) => (release = resolve))
    answer({ conversation_list: () => ready.then(() => ({ data: [conversation, older] })) })
    await renderApp('/messages', { session })
    expect(await screen.findAllByText('Loading your conversations...')).not.toHaveLength(0)
    act(() => release())
    const list = await screen.findByRole('navigation', { name: 'Conversations' })
    const items = within(list).getAllByRole('link')
    expect(items.map((item) => item.getAttribute('href'))).toEqual([`/messages/${conversation.id}`, `/messages/${older.id}`])
    expect(items[0]).toHaveTextContent('Brian Otieno')
    expect(items[0]).toHaveTextContent('Property · Bedsitter in Kilimani')
    expect(items[0]).toHaveTextContent('Is it still available?')
    expect(items[0]).toHaveTextContent('2 unread')
    expect(items[1]).toHaveTextContent('Land · Plot in Ruiru')
    expect(items[1]).toHaveTextContent('You: Thank you')
    expect(items[1]).not.toHaveTextContent('unread')
    const read = fake.requestsOf('conversation_list')[0]
    expect(read.calls).toContainEqual(['order', 'last_message_at', { ascending: false }])
    expect(screen.getByText('Choose a conversation to read it.')).toBeInTheDocument()
  })

  it("says 'No messages yet' when there are none", async () => {
    answer({ conversation_list: [] })
    await renderApp('/messages', { session })
    expect(await screen.findByRole('heading', { name: 'No messages yet' })).toBeInTheDocument()
    expect(screen.getByText(/Message a listing's owner from its page/)).toBeInTheDocument()
  })

  it('shows a failure with a retry that reads again', async () => {
    let fail = true
    answer({
      conversation_list: () => (fail ? Promise.reject(new Error('offline')) : Promise.resolve({ data: [conversation] })),
    })
    const { user } = await renderApp('/messages', { session })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Could not load your messages')
    fail = false
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByRole('link', { name: /Brian Otieno/ })).toBeInTheDocument()
  })

  it('counts unread messages on the Messages link of the top bar and the phone bar', async () => {
    await renderApp('/home', { session })
    expect(await screen.findByRole('link', { name: 'Messages, 2 unread' })).toHaveAttribute('href', '/messages')
    const bar = screen.getByRole('navigation', { name: 'Mobile navigation' })
    const barLink = await within(bar).findByRole('link', { name: /^Messages/ })
    await waitFor(() => expect(barLink.querySelector('[data-unread]')).toHaveTextContent('2 unread'))
    expect(barLink).toHaveAttribute('href', '/messages')
  })
})

describe('/messages/:id thread', () => {
  const first = message('m1', brian, 'Is it still available?', '2026-11-20T10:00:00+00:00')
  const second = message('m2', me, 'Yes, come and see it.', '2026-11-20T10:02:00+00:00')

  it('shows the other party, the listing link and the messages, and marks the conversation read', async () => {
    answer({ conversation_list: [conversation, older], messages: [second, first] })
    await renderApp(`/messages/${conversation.id}`, { session })
    const thread = await screen.findByRole('region', { name: 'Conversation' })
    expect(within(thread).getByRole('heading', { name: 'Brian Otieno' })).toBeInTheDocument()
    expect(within(thread).getByRole('link', { name: 'Bedsitter in Kilimani' })).toHaveAttribute('href', `/properties/${listingId}`)
    const log = await within(thread).findByRole('log', { name: 'Messages with Brian Otieno' })
    expect(within(log).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      expect.stringContaining('Brian Otieno: Is it still available?'),
      expect.stringContaining('You: Yes, come and see it.'),
    ])
    await waitFor(() => expect(rpcCalls('mark_conversation_read')).toEqual([['mark_conversation_read', { p_conversation_id: conversation.id }]]))
    expect(screen.getByRole('link', { name: /Brian Otieno/, current: 'page' })).toBeInTheDocument()
  })

  it('sends a reply, which appears in the thread', async () => {
    const thread = [first]
    const reply = message('m3', me, 'Karibu!', '2026-11-20T10:06:00+00:00')
    answer({
      conversation_list: [conversation],
      messages: (request: Request) => {
        const [method, payload] = request.calls[0]
        if (method === 'insert') {
          expect(payload).toEqual({ conversation_id: conversation.id, body: 'Karibu!' })
          thread.push(reply)
          return { data: reply }
        }
        return { data: [...thread] }
      },
    })
    const { user } = await renderApp(`/messages/${conversation.id}`, { session })
    const box = await screen.findByRole('textbox', { name: 'Message' })
    await user.type(box, 'Karibu!{Enter}')
    const log = await screen.findByRole('log')
    await waitFor(() => expect(within(log).getAllByRole('listitem')).toHaveLength(2))
    expect(within(log).getAllByRole('listitem')[1]).toHaveTextContent('You: Karibu!')
    expect(box).toHaveValue('')
  })

  it("shows the other party's new message live and marks it read", async () => {
    const thread = [first]
    answer({ conversation_list: [conversation], messages: () => ({ data: [...thread] }) })
    await renderApp(`/messages/${conversation.id}`, { session })
    const log = await screen.findByRole('log')
    await waitFor(() => expect(rpcCalls('mark_conversation_read')).toHaveLength(1))
    const channel = fake.channels.find((c) => c.topic.startsWith(`inbox-messages:${me}`) && !c.removed)
    expect(channel?.bindings.map((b) => b.filter)).toEqual([
      { event: 'INSERT', schema: 'public', table: 'messages' },
      { event: '*', schema: 'public', table: 'conversations' },
    ])
    const live = message('m9', brian, 'Can I come at 5pm?', '2026-11-20T10:09:00+00:00')
    thread.push(live)
    act(() => channel!.emit('messages', { eventType: 'INSERT', new: live, old: {} }))
    await waitFor(() => expect(within(log).getAllByRole('listitem')).toHaveLength(2))
    expect(within(log).getAllByRole('listitem')[1]).toHaveTextContent('Can I come at 5pm?')
    await waitFor(() => expect(rpcCalls('mark_conversation_read')).toHaveLength(2))
  })

  it('keeps one Realtime channel for the page and the badges', async () => {
    answer({ conversation_list: [conversation], messages: [first] })
    await renderApp(`/messages/${conversation.id}`, { session })
    await screen.findByRole('log')
    await screen.findByRole('link', { name: 'Messages, 2 unread' })
    expect(fake.channels.filter((c) => c.topic.startsWith('inbox-messages:') && !c.removed)).toHaveLength(1)
  })

  it("says so when the conversation is not the user's or does not exist", async () => {
    answer({ conversation_list: [older] })
    await renderApp(`/messages/${conversation.id}`, { session })
    expect(await screen.findByRole('heading', { name: 'Conversation not found' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'All messages' })).toHaveAttribute('href', '/messages')
    expect(rpcCalls('mark_conversation_read')).toEqual([])
  })

  it('shows a failed thread with a retry', async () => {
    answer({ conversation_list: [conversation], messages: () => Promise.reject(new Error('offline')) })
    await renderApp(`/messages/${conversation.id}`, { session })
    expect(await screen.findByText('Could not load this conversation')).toBeInTheDocument()
  })
})

describe('reporting', () => {
  async function openReport() {
    answer({ conversation_list: [conversation], messages: [], reports: () => ({ data: null }) })
    const rendered = await renderApp(`/messages/${conversation.id}`, { session })
    await rendered.user.click(await screen.findByRole('button', { name: 'Report' }))
    return { ...rendered, dialog: await screen.findByRole('dialog', { name: 'Report to KejaNest' }) }
  }

  it('needs a reason of at least 3 characters, then files the report on the listing', async () => {
    const { user, dialog } = await openReport()
    await user.type(within(dialog).getByLabelText('Reason'), 'no')
    await user.click(within(dialog).getByRole('button', { name: 'Send report' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Give a reason of at least 3 characters')
    expect(fake.requestsOf('reports')).toHaveLength(0)

    await user.click(within(dialog).getByRole('radio', { name: 'The listing' }))
    await user.type(within(dialog).getByLabelText('Reason'), 't a real house')
    await user.click(within(dialog).getByRole('button', { name: 'Send report' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(fake.requestsOf('reports')[0].calls).toEqual([
      ['insert', { target_kind: 'property', target_id: listingId, reason: 'not a real house' }],
    ])
    expect(visibleToasts()[0]).toHaveTextContent('Report sent')
  })

  it("says 'already reported' for a second open report (23505)", async () => {
    const { user, dialog } = await openReport()
    answer({
      conversation_list: [conversation],
      messages: [],
      reports: () => ({ data: null, error: { code: '23505', message: 'duplicate key value violates unique constraint' } }),
    })
    await user.type(within(dialog).getByLabelText('Reason'), 'Asking for money up front')
    await user.click(within(dialog).getByRole('button', { name: 'Send report' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('You have already reported this.')
    expect(fake.requestsOf('reports')[0].calls[0]).toEqual([
      'insert',
      { target_kind: 'conversation', target_id: conversation.id, reason: 'Asking for money up front' },
    ])
  })
})
