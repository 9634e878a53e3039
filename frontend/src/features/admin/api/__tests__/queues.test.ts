import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'

import { listContactMessages, listReports } from '../inbox'
import { listModeration } from '../listings'
import { uniqueById } from '../queue'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

beforeEach(() => {
  fake.requests.length = 0
  fake.respondWith(() => ({ data: [] }))
})

/** Whether request filters status to value. */
const wants = (request: Request, value: string) => request.calls.some((c) => c[0] === 'eq' && c[1] === 'status' && c[2] === value)

describe('uniqueById', () => {
  it.each([
    { name: 'keeps the first copy of each id', rows: [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 1, v: 'c' }], want: ['a', 'b'] },
    { name: 'keeps distinct rows in order', rows: [{ id: 3, v: 'x' }, { id: 1, v: 'y' }], want: ['x', 'y'] },
    { name: 'takes an empty list', rows: [], want: [] },
  ])('$name', ({ rows, want }) => {
    expect(uniqueById(rows).map((r) => r.v)).toEqual(want)
  })
})

describe('admin inbox queues', () => {
  it('shows an open report that lies beyond the newest 200, first, and each report once', async () => {
    const old = { id: 1, status: 'open', created_at: '2024-01-01T00:00:00Z' }
    const recentOpen = { id: 300, status: 'open', created_at: '2024-09-02T00:00:00Z' }
    const handled = { id: 299, status: 'resolved', created_at: '2024-09-01T00:00:00Z' }
    fake.respondWith((request) => ({ data: wants(request, 'open') ? [recentOpen, old] : [recentOpen, handled] }))
    const rows = await listReports()
    expect(rows.map((r) => r.id)).toEqual([300, 1, 299])
    const reads = fake.requestsOf('reports')
    expect(reads).toHaveLength(2)
    for (const read of reads) {
      expect(read.calls).toContainEqual(['order', 'created_at', { ascending: false }])
      expect(read.calls).toContainEqual(['limit', 200])
    }
  })

  it('shows a new contact message that lies beyond the newest 200, first', async () => {
    const old = { id: 7, status: 'new', created_at: '2024-01-01T00:00:00Z' }
    const handled = { id: 500, status: 'handled', created_at: '2024-09-01T00:00:00Z' }
    fake.respondWith((request) => ({ data: wants(request, 'new') ? [old] : [handled] }))
    expect((await listContactMessages()).map((r) => r.id)).toEqual([7, 500])
    expect(fake.requestsOf('contact_messages').filter((r) => wants(r, 'new'))).toHaveLength(1)
  })
})

describe('admin services queues', () => {
  const provider = (id: string, verified: boolean, created: string) => ({
    id, name: `Provider ${id}`, userid: 'u1', location: 'Kilimani', category: 'Moving', verified,
    payment_status: 'paid', is_active: true, moderation_notes: null, created_at: created,
  })

  it('shows an unverified provider that lies beyond the newest 200 of its category, first, and each once', async () => {
    const oldUnverified = provider('old', false, '2024-01-01T00:00:00Z')
    const newUnverified = provider('new', false, '2024-09-02T00:00:00Z')
    const verified = provider('done', true, '2024-09-01T00:00:00Z')
    fake.respondWith((request) => {
      if (request.table !== 'service_providers') return { data: [] }
      const waiting = request.calls.some((c) => c[0] === 'eq' && c[1] === 'verified' && c[2] === false)
      return { data: waiting ? [newUnverified, oldUnverified] : [newUnverified, verified] }
    })
    const items = await listModeration('moving-services')
    expect(items.map((i) => i.id)).toEqual(['new', 'old', 'done'])
    expect(items.map((i) => i.verified)).toEqual([false, false, true])
    const reads = fake.requestsOf('service_providers')
    expect(reads).toHaveLength(2)
    for (const read of reads) {
      expect(read.calls).toContainEqual(['eq', 'category', 'Moving'])
      expect(read.calls).toContainEqual(['order', 'created_at', { ascending: false }])
      expect(read.calls).toContainEqual(['limit', 200])
    }
  })

  it('reads the drone section by its own category', async () => {
    await listModeration('drone-services')
    const reads = fake.requestsOf('service_providers')
    expect(reads).toHaveLength(2)
    for (const read of reads) expect(read.calls).toContainEqual(['eq', 'category', 'Drone'])
  })
})
