import { act, screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { setLanguage } from '@/lib/i18n/i18n'
import { fake } from '@/testing/supabase-mock'
import { renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const lastRequest = (table: string) => fake.requestsOf(table).at(-1)!

const warehouse = {
  id: '0e5a0000-0000-4000-8000-0000000000b1',
  title: null,
  type: 'Warehouse',
  purpose: 'Rent',
  price: 150_000.4,
  location: null,
  description: null,
  deposit: 300_000,
  images: [],
  created_at: '2026-11-01T00:00:00Z',
}

beforeEach(() => {
  fake.requests.length = 0
  fake.respondWith(() => ({ data: [], count: 0 }))
})

describe('/marketplace', () => {
  it('reads category, condition, location and search from the URL and shows the empty state', async () => {
    await renderApp('/marketplace?category=Kitchen&status=New&location=Westlands&query=cooker')
    expect(await screen.findByRole('heading', { name: 'No products found' })).toBeInTheDocument()
    expect(screen.getByLabelText('Category')).toHaveValue('Kitchen')
    expect(screen.getByLabelText('Condition')).toHaveValue('New')
    expect(screen.getByLabelText('Location')).toHaveValue('Westlands')
    expect(screen.getByLabelText('Search products')).toHaveValue('cooker')
    const request = lastRequest('products')
    expect(request.calls).toEqual(
      expect.arrayContaining([
        ['eq', 'is_active', true],
        ['eq', 'category', 'Kitchen'],
        ['eq', 'status', 'New'],
        ['ilike', 'location', '%Westlands%'],
        ['textSearch', 'search', 'cooker:*', { config: 'english' }],
      ]),
    )
  })

  it('applies a text filter on Enter, keeps the page when it did not change, and Clear Filters resets all', async () => {
    const { user, router } = await renderApp('/marketplace?category=Decor&page=2')
    const location = await screen.findByLabelText('Location')
    await user.click(location)
    await user.tab()
    expect(router.state.location.search).toBe('?category=Decor&page=2')

    await user.type(location, ' Karen {enter}')
    await waitFor(() => expect(router.state.location.search).toBe('?category=Decor&location=Karen'))
    expect(lastRequest('products').calls).toContainEqual(['ilike', 'location', '%Karen%'])

    await user.selectOptions(screen.getByLabelText('Condition'), 'Used')
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('status')).toBe('Used'))
    await user.click(screen.getByRole('button', { name: 'Clear Filters' }))
    await waitFor(() => expect(router.state.location.search).toBe(''))
    expect(screen.getByLabelText('Location')).toHaveValue('')
  })
})

describe('/properties', () => {
  it("shows cards with the spec's fallbacks, KES without decimals, '/month', the deposit, and pages on the server", async () => {
    // A full first page and an estimated total of 13: the list asks for
    // count=estimated, and only a full page keeps the estimate.
    const page = Array.from({ length: 12 }, (_, i) => ({ ...warehouse, id: `${warehouse.id}-${i}` }))
    fake.respondWith(() => ({ data: page, count: 13 }))
    const { user, router } = await renderApp('/properties?type=Warehouse')
    const card = (await screen.findAllByRole('link', { name: /Untitled Property/ }))[0].closest('li')!
    expect(within(card).getByText('Location not specified')).toBeInTheDocument()
    expect(within(card).getByText('No description available')).toBeInTheDocument()
    expect(within(card).getByText((_, element) => element?.tagName === 'P' && /^Ksh\s150,000\/month$/.test(element.textContent ?? ''))).toBeInTheDocument()
    expect(within(card).getByText(/Deposit: Ksh\s300,000/)).toBeInTheDocument()
    expect(within(card).getByRole('img')).toHaveAttribute('src', '/placeholder.svg')
    expect(screen.getByText('13 results')).toBeInTheDocument()

    const pages = screen.getByRole('navigation', { name: 'Pages' })
    expect(within(pages).getByText('Page 1 of 2')).toBeInTheDocument()
    await user.click(within(pages).getByRole('button', { name: 'Next' }))
    await waitFor(() => expect(router.state.location.search).toBe('?type=Warehouse&page=2'))
    await waitFor(() => expect(lastRequest('properties').calls).toContainEqual(['range', 12, 23]))
  })

  it('speaks Kiswahili: filter options and card badges, with the stored values in the URL', async () => {
    fake.respondWith(() => ({ data: [warehouse], count: 1 }))
    const { router } = await renderApp('/properties')
    await screen.findByText('1 result')
    await act(async () => {
      setLanguage('sw')
    })
    try {
      await waitFor(() => expect(screen.getByRole('option', { name: 'Ghala' })).toHaveValue('Warehouse'))
      const card = screen.getByRole('link', { name: /Nyumba Isiyo na Jina/ })
      expect(within(card).getByText('Ghala')).toBeInTheDocument()
      expect(screen.getByText('Tokeo 1')).toBeInTheDocument()
      expect(router.state.location.search).toBe('')
    } finally {
      await act(async () => {
        setLanguage('en')
      })
    }
  })
})
