import { describe, expect, it, vi } from 'vitest'

import { serviceProviderSelect } from '@/lib/listing-columns'
import { fake } from '@/testing/supabase-mock'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const { getServices, matchesServiceSearch, SERVICE_SEARCH_LIMIT } = await import('../get-services')
const { readServiceFilters } = await import('../../components/services-list')
const { serviceKeys } = await import('../keys')

const provider = (id: string, name: string, location: string | null, services: string[]) => ({ id, name, location, services })

describe('getServices', () => {
  it('pages active providers of a tab on the server when nothing is searched, with an estimated count', async () => {
    const filters = readServiceFilters(new URLSearchParams('category=Drone&page=3'))
    expect(filters).toEqual({ category: 'Drone', page: 3 })
    const fullPage = Array.from({ length: 12 }, (_, i) => provider(String(i), `Provider ${i}`, null, []))
    fake.respondWith(() => ({ data: fullPage, count: 40 }))
    await expect(getServices(filters)).resolves.toEqual({ items: fullPage, count: 40 })
    const request = fake.requestsOf('service_providers').at(-1)!
    expect(request.calls).toContainEqual(['select', serviceProviderSelect, { count: 'estimated' }])
    expect(request.calls).toContainEqual(['eq', 'is_active', true])
    expect(request.calls).toContainEqual(['eq', 'category', 'Drone'])
    expect(request.calls).toContainEqual(['range', 24, 35])

    // An estimate can be off either way: a short page is the last one and
    // settles the total, a full page proves at least its rows exist.
    fake.respondWith(() => ({ data: fullPage.slice(0, 5), count: 40 }))
    await expect(getServices(filters)).resolves.toMatchObject({ count: 29 })
    fake.respondWith(() => ({ data: fullPage, count: 20 }))
    await expect(getServices(filters)).resolves.toMatchObject({ count: 36 })
  })

  it('searches name, location and every listed service case-insensitively, then pages the matches', async () => {
    const rows = [
      provider('1', 'Swift Movers', 'Nairobi', ['House moving']),
      provider('2', 'SkyShots', 'Mombasa', ['Aerial photography', 'Roof inspection']),
      provider('3', 'Pwani Logistics', 'Mombasa', ['Office relocation']),
      provider('4', 'Lakeside Drones', 'Kisumu', ['Crop spraying']),
    ]
    fake.respondWith(() => ({ data: rows }))
    const page = await getServices(readServiceFilters(new URLSearchParams('search=  mombasa ')))
    expect(page.items.map((item) => item.id)).toEqual(['2', '3'])
    expect(page.count).toBe(2)
    const request = fake.requestsOf('service_providers').at(-1)!
    expect(request.calls).toContainEqual(['limit', SERVICE_SEARCH_LIMIT])
    expect(request.calls.some(([method]) => method === 'range' || method === 'or')).toBe(false)

    const byService = await getServices({ search: 'ROOF', page: 1 })
    expect(byService.items.map((item) => item.id)).toEqual(['2'])
    await expect(getServices({ search: 'roof', page: 2 })).resolves.toEqual({ items: [], count: 1 })
  })

  it('matches nothing that is not in the name, location or services', () => {
    const skyShots = provider('2', 'SkyShots', null, ['Aerial photography'])
    expect(matchesServiceSearch(skyShots, 'aerial')).toBe(true)
    expect(matchesServiceSearch(skyShots, 'plumbing')).toBe(false)
    expect(matchesServiceSearch(skyShots, '   ')).toBe(true)
  })

  it('ignores unknown tabs', () => {
    expect(readServiceFilters(new URLSearchParams('category=Plumbing'))).toEqual({ page: 1 })
  })

  it('keys lists under the feature root so mutations can invalidate them', () => {
    expect(serviceKeys.list({ page: 1 }).slice(0, 2)).toEqual([...serviceKeys.lists()])
    expect(serviceKeys.detail('s1')[0]).toBe(serviceKeys.all[0])
  })
})
