import { screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { getProduct, getSimilarProducts } from '@/features/products/api/get-product'
import { getProducts, type Product } from '@/features/products/api/get-products'
import { getProperties, type Property } from '@/features/properties/api/get-properties'
import { getProperty, getSimilarProperties } from '@/features/properties/api/get-property'
import { getService, getSimilarServices } from '@/features/services/api/get-service'
import { getServices, type ServiceProvider } from '@/features/services/api/get-services'
import { productColumns, propertyColumns, serviceProviderColumns } from '@/lib/listing-columns'
import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

// Issue 12: anon may select every column of these tables but the contact one
// (sql/migrations/0019_private_data.sql), so a visitor's select=* or any
// mention of the contact column is refused with 42501.
const privateColumn: Record<string, string> = { properties: 'contact', products: 'contact', service_providers: 'phone' }
const publicColumns: Record<string, readonly string[]> = {
  properties: propertyColumns,
  products: productColumns,
  service_providers: serviceProviderColumns,
}

const id = '0e5a0000-0000-4000-8000-0000000000c1'

const property: Property = {
  id,
  user_id: '0e5a0000-0000-4000-8000-000000000009',
  title: 'Bedsitter in Umoja',
  type: 'Bedsitter',
  purpose: 'Rent',
  price: 9_000,
  price_unit: 'month',
  location: 'Umoja, Nairobi',
  description: null,
  deposit: null,
  images: [],
  created_at: '2026-11-01T00:00:00Z',
  is_active: true,
  payment_status: 'paid',
  paid_until: '2099-01-01T00:00:00Z',
  pending_days: 0,
  pending_fee: 0,
  moderation_notes: null,
  updated_at: '2026-11-01T00:00:00Z',
}
const product: Product = {
  id,
  user_id: '0e5a0000-0000-4000-8000-000000000009',
  name: 'Mahogany wardrobe',
  price: 25_000,
  status: 'Used',
  category: 'Bedroom',
  description: null,
  location: 'Kisumu',
  images: [],
  value_range: 'Basic',
  created_at: '2026-11-01T00:00:00Z',
  is_active: true,
  payment_status: 'paid',
  paid_until: '2099-01-01T00:00:00Z',
  pending_days: 0,
  pending_fee: 0,
  moderation_notes: null,
  updated_at: '2026-11-01T00:00:00Z',
}
const provider: ServiceProvider = {
  id,
  userid: '0e5a0000-0000-4000-8000-000000000009',
  name: 'Ziwa Movers',
  category: 'Moving',
  location: 'Kisumu',
  description: null,
  services: ['Packing'],
  pricing: [],
  reviews: [],
  rating: null,
  verified: false,
  profileimage: null,
  created_at: '2026-11-01T00:00:00Z',
  is_active: true,
  payment_status: 'paid',
  paid_until: '2099-01-01T00:00:00Z',
  pending_days: 0,
  pending_fee: 0,
  moderation_notes: null,
  updated_at: '2026-11-01T00:00:00Z',
}
const rowOf: Record<string, object> = { properties: property, products: product, service_providers: provider }

/** The column names a request selects; a select() without columns is '*'. */
function selectedColumns(request: Request): string[] {
  return request.calls
    .filter(([method]) => method === 'select')
    .flatMap(([, columns]) => (typeof columns === 'string' ? columns : '*').split(',').map((column) => column.trim()))
}

/** Whether anon's column privileges refuse the request: select=*, or the private column selected or filtered on. */
function refusedForAnon(request: Request): boolean {
  const column = privateColumn[request.table]
  if (!column) return false
  if (selectedColumns(request).some((name) => name === '*' || name === column)) return true
  return request.calls.some(
    ([method, first]) => method !== 'select' && typeof first === 'string' && (first === column || first.includes(`${column}.`)),
  )
}

/** Answers like the server does for anon: 42501 for a refused read, else the table's row. */
function answerAsAnon(request: Request) {
  if (refusedForAnon(request)) {
    throw Object.assign(new Error(`permission denied for table ${request.table}`), { code: '42501' })
  }
  const row = rowOf[request.table]
  if (request.calls.some(([method]) => method === 'maybeSingle')) return { data: row ?? null }
  return { data: row ? [row] : [], count: row ? 1 : 0 }
}

beforeEach(() => {
  fake.requests.length = 0
  fake.respondWith(answerAsAnon)
  fake.client.rpc.mockReset()
  fake.client.rpc.mockImplementation((name: string) => {
    if (name !== 'get_listing_owner') return undefined
    const request = {
      abortSignal: () => request,
      throwOnError: () => Promise.resolve({ data: { kyc_verified: false, contact: null }, error: null }),
    }
    return request
  })
})

describe('reads a visitor can make', () => {
  it.each([
    ['getProperties', 'properties', () => getProperties({ page: 1, query: 'umoja', location: 'Nairobi' })],
    ['getProperty', 'properties', () => getProperty(id)],
    ['getSimilarProperties', 'properties', () => getSimilarProperties(property)],
    ['getProducts', 'products', () => getProducts({ page: 1, query: 'wardrobe', location: 'Kisumu' })],
    ['getProduct', 'products', () => getProduct(id)],
    ['getSimilarProducts', 'products', () => getSimilarProducts(product)],
    ['getServices', 'service_providers', () => getServices({ page: 1, category: 'Moving' })],
    ['getServices (search)', 'service_providers', () => getServices({ page: 1, search: 'movers' })],
    ['getService', 'service_providers', () => getService(id)],
    ['getSimilarServices', 'service_providers', () => getSimilarServices(provider)],
  ] as const)('%s names the public columns only: no *, no contact, no phone', async (_, table, read) => {
    await read()
    const [request] = fake.requestsOf(table)
    const columns = selectedColumns(request)
    expect(columns).not.toContain('*')
    expect(columns).not.toContain('contact')
    expect(columns).not.toContain('phone')
    expect(columns).toEqual([...publicColumns[table]])
    expect(refusedForAnon(request)).toBe(false)
  })
})

describe('listing pages for a visitor', () => {
  it.each([
    ['/properties', 'properties', property.title!, 1],
    [`/properties/${id}`, 'properties', property.title!, 2],
    ['/marketplace', 'products', product.name, 1],
    [`/marketplace/${id}`, 'products', product.name, 2],
    ['/services', 'service_providers', provider.name, 1],
    [`/service-provider/${id}`, 'service_providers', provider.name, 2],
  ])('%s shows the listing without a read the server would refuse', async (path, table, name, reads) => {
    await renderApp(path)
    await waitFor(() => expect(screen.getAllByText(name).length).toBeGreaterThan(0))
    await waitFor(() => expect(fake.requestsOf(table).length).toBeGreaterThanOrEqual(reads))
    const refused = fake.requests.filter(refusedForAnon)
    expect(refused).toEqual([])
  })
})
