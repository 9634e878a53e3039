import { beforeEach, describe, expect, it, vi } from 'vitest'

import { propertySelect } from '@/lib/listing-columns'
import { fake } from '@/testing/supabase-mock'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { getProperties } = await import('../get-properties')
const { readPropertyFilters } = await import('../../components/properties-list')

describe('getProperties', () => {
  beforeEach(() => {
    fake.requests.length = 0
    fake.respondWith(() => ({ data: [{ id: 'p1' }], count: 30 }))
  })

  it('asks for active rows only, newest first, one page at a time, with an estimated count', async () => {
    // A short page is the last one: it settles an estimated total.
    const page = await getProperties({ page: 2 })
    expect(page).toEqual({ items: [{ id: 'p1' }], count: 13 })
    const [request] = fake.requestsOf('properties')
    expect(request.calls).toContainEqual(['select', propertySelect, { count: 'estimated' }])
    expect(request.calls).toContainEqual(['eq', 'is_active', true])
    expect(request.calls).toContainEqual(['order', 'created_at', { ascending: false }])
    expect(request.calls).toContainEqual(['range', 12, 23])
    expect(request.calls).toContainEqual(['throwOnError'])
  })

  it('turns URL filters into type, purpose, location and free-text filters', async () => {
    const filters = readPropertyFilters(
      new URLSearchParams('type=One+Bedroom&purpose=Rent&location=Kilimani&query=near+Yaya,+(mall)'),
    )
    expect(filters).toEqual({ page: 1, type: 'One Bedroom', purpose: 'Rent', location: 'Kilimani', query: 'near Yaya, (mall)' })
    const signal = new AbortController().signal
    await getProperties(filters, signal)
    const [request] = fake.requestsOf('properties')
    expect(request.calls).toContainEqual(['eq', 'type', 'One Bedroom'])
    expect(request.calls).toContainEqual(['eq', 'purpose', 'Rent'])
    expect(request.calls).toContainEqual(['ilike', 'location', '%Kilimani%'])
    // The words become a full-text prefix query on the search vector; punctuation only separates them.
    expect(request.calls).toContainEqual(['textSearch', 'search', 'near:* & yaya:* & mall:*', { config: 'english' }])
    expect(request.calls.some(([method]) => method === 'or')).toBe(false)
    expect(request.calls).toContainEqual(['abortSignal', signal])
  })

  it("maps the landing page's Commercial tile onto the commercial types", async () => {
    await getProperties(readPropertyFilters(new URLSearchParams('category=Commercial')))
    const [request] = fake.requestsOf('properties')
    expect(request.calls).toContainEqual(['in', 'type', ['Office Space', 'Retail Space', 'Warehouse']])
  })

  it('reads a bad page number as page 1', () => {
    expect(readPropertyFilters(new URLSearchParams('page=-3')).page).toBe(1)
    expect(readPropertyFilters(new URLSearchParams('page=abc')).page).toBe(1)
  })

  it('keeps punctuation in a location (plain ilike, no quoting) and splits a free-text search into words', async () => {
    await getProperties({ page: 1, location: 'Kilimani, Nairobi', query: 'Mt. Kenya' })
    const [request] = fake.requestsOf('properties')
    expect(request.calls).toContainEqual(['ilike', 'location', '%Kilimani, Nairobi%'])
    expect(request.calls).toContainEqual(['textSearch', 'search', 'mt:* & kenya:*', { config: 'english' }])
  })
})
