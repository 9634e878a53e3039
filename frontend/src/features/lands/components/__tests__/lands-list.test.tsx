import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

describe('/lands', () => {
  it('reads search, type, purpose and sort from the URL and shows the empty state', async () => {
    fake.respondWith(() => ({ data: [], count: 0 }))
    await renderApp('/lands?search=Kitengela&type=Agricultural&purpose=Lease&sort=price-asc')
    expect(await screen.findByRole('heading', { name: 'No land listings found' })).toBeInTheDocument()
    expect(screen.getByText('Try adjusting your filters or search terms')).toBeInTheDocument()
    expect(screen.getByLabelText('Land Type')).toHaveValue('Agricultural')
    expect(screen.getByLabelText('Sort by')).toHaveValue('price-asc')

    const request = fake.requestsOf('lands').at(-1)!
    expect(request.calls).toContainEqual(['eq', 'type', 'Agricultural'])
    expect(request.calls).toContainEqual(['eq', 'purpose', 'Lease'])
    expect(request.calls).toContainEqual(['textSearch', 'search', 'kitengela:*', { config: 'english' }])
    expect(request.calls).toContainEqual(['order', 'price', { ascending: true }])
  })

  it('Clear Filters resets everything', async () => {
    fake.respondWith(() => ({ data: [], count: 0 }))
    const { user, router } = await renderApp('/lands?search=x&type=Industrial&purpose=Sale&sort=price-desc&page=2')
    await user.click(await screen.findByRole('button', { name: 'Clear Filters' }))
    await waitFor(() => expect(router.state.location.search).toBe(''))
    expect(screen.getByLabelText('Land Type')).toHaveValue('')
    expect(screen.getByLabelText('Sort by')).toHaveValue('newest')
  })

  it('shows the failure text when loading fails', async () => {
    fake.respondWith(() => Promise.reject(new Error('boom')))
    await renderApp('/lands')
    expect(await screen.findByText('Failed to load land listings')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument()
  })
})
