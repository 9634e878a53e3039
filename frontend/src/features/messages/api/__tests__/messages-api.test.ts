import { beforeEach, describe, expect, it, vi } from 'vitest'

import { enInbox } from '@/lib/i18n/en-inbox'
import { fake } from '@/testing/supabase-mock'

import { totalUnread } from '../get-conversations'
import { withMessage, type Message } from '../get-messages'
import { AlreadyReportedError, createReport, reportRow, reportSchema } from '../report'
import { messageBodySchema, messageFormSchema, sendErrorKey, sendMessage } from '../send-message'
import { startConversation } from '../start-conversation'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

function bodyProblem(body: string) {
  const result = messageFormSchema.safeParse({ body })
  return result.success ? null : result.error.issues[0].message
}

function reasonProblem(reason: string) {
  const result = reportSchema.safeParse({ target: 'conversation', reason })
  return result.success ? null : result.error.issues[0].message
}

beforeEach(() => {
  fake.requests.length = 0
  fake.client.rpc.mockReset()
  fake.respondWith(() => ({ data: [] }))
})

describe('message rules (messages_body_check: 1 to 2000 characters, trimmed)', () => {
  it('refuses an empty or blank message', () => {
    expect(bodyProblem('')).toBe('inbox.messageRequired')
    expect(bodyProblem(' \n\t ')).toBe('inbox.messageRequired')
    expect(enInbox['inbox.messageRequired']).toBe('Write a message first')
  })

  it('takes up to 2000 characters after trimming, not one more', () => {
    expect(bodyProblem('a'.repeat(2000))).toBeNull()
    expect(bodyProblem(`  ${'a'.repeat(2000)}  `)).toBeNull()
    expect(bodyProblem('a'.repeat(2001))).toBe('inbox.messageTooLong')
    expect(messageBodySchema.parse('  Habari?  ')).toBe('Habari?')
  })

  it("words the database's refusals and leaves others to a general line", () => {
    expect(sendErrorKey(new Error('You are sending messages too fast'))).toBe('inbox.tooFast')
    expect(sendErrorKey(new Error('This is your own listing'))).toBe('inbox.ownListing')
    expect(sendErrorKey(new Error('Listing not found'))).toBe('inbox.listingGone')
    expect(sendErrorKey({ message: 'Message is too long' })).toBe('inbox.messageTooLong')
    expect(sendErrorKey(new Error('permission denied for table messages'))).toBeNull()
  })
})

describe('report rules (reports_reason_check: 3 to 1000 characters, trimmed)', () => {
  it('needs a reason of 3 to 1000 characters', () => {
    expect(reasonProblem('')).toBe('inbox.reportReasonShort')
    expect(reasonProblem('  ab  ')).toBe('inbox.reportReasonShort')
    expect(reasonProblem('abc')).toBeNull()
    expect(reasonProblem('x'.repeat(1000))).toBeNull()
    expect(reasonProblem('x'.repeat(1001))).toBe('inbox.reportReasonLong')
  })

  it('reports the conversation itself or the listing it is about', () => {
    const conversation = { id: 'c1', listing_kind: 'land' as const, listing_id: 'l1' }
    expect(reportRow({ target: 'conversation', reason: 'Spam' }, conversation)).toEqual({
      target_kind: 'conversation',
      target_id: 'c1',
      reason: 'Spam',
    })
    expect(reportRow({ target: 'listing', reason: 'Fake plot' }, conversation)).toEqual({
      target_kind: 'land',
      target_id: 'l1',
      reason: 'Fake plot',
    })
  })

  it('turns a second open report (23505) into AlreadyReportedError', async () => {
    fake.respondWith(() => ({ data: null, error: { code: '23505', message: 'duplicate key value violates unique constraint' } }) as never)
    await expect(createReport({ target_kind: 'conversation', target_id: 'c1', reason: 'Spam' })).rejects.toBeInstanceOf(AlreadyReportedError)
    fake.respondWith(() => ({ data: null, error: { code: '42501', message: 'permission denied' } }) as never)
    await expect(createReport({ target_kind: 'conversation', target_id: 'c1', reason: 'Spam' })).rejects.toMatchObject({ code: '42501' })
    fake.respondWith(() => ({ data: null }))
    await expect(createReport({ target_kind: 'property', target_id: 'p1', reason: 'Spam' })).resolves.toBeUndefined()
    expect(fake.requestsOf('reports').at(-1)?.calls).toEqual([['insert', { target_kind: 'property', target_id: 'p1', reason: 'Spam' }]])
  })
})

describe('calls', () => {
  it('sends a trimmed message into its conversation', async () => {
    const stored = { id: 'm1', conversation_id: 'c1', sender_id: 'u1', body: 'Habari', created_at: '2026-11-20T10:00:00Z' }
    fake.respondWith(() => ({ data: stored }))
    await expect(sendMessage({ conversationId: 'c1', body: '  Habari \n' })).resolves.toEqual(stored)
    expect(fake.requestsOf('messages')[0].calls[0]).toEqual(['insert', { conversation_id: 'c1', body: 'Habari' }])
  })

  it('starts a conversation through start_conversation and returns its id', async () => {
    fake.client.rpc.mockReturnValue({ throwOnError: async () => ({ data: 'c9' }) })
    await expect(startConversation({ kind: 'product', listingId: 'p1', body: ' Is it available? ' })).resolves.toBe('c9')
    expect(fake.client.rpc).toHaveBeenCalledWith('start_conversation', { p_kind: 'product', p_listing_id: 'p1', p_body: 'Is it available?' })
  })
})

describe('cache helpers', () => {
  const message = (id: string, at: string): Message => ({ id, conversation_id: 'c1', sender_id: 'u1', body: id, created_at: at })

  it('adds a message once, in time order', () => {
    const a = message('a', '2026-11-20T10:00:00+00:00')
    const b = message('b', '2026-11-20T10:05:00.123456+00:00')
    const list = withMessage([b], a)
    expect(list.map((m) => m.id)).toEqual(['a', 'b'])
    expect(withMessage(list, b).map((m) => m.id)).toEqual(['a', 'b'])
    expect(withMessage(undefined, a)).toEqual([a])
  })

  it('adds up the unread counts of all conversations', () => {
    expect(totalUnread([])).toBe(0)
    expect(totalUnread([{ unread_count: 2 }, { unread_count: 0 }, { unread_count: 5 }])).toBe(7)
  })
})
