import { act, screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

beforeEach(() => {
  fake.requests.length = 0
  fake.respondWith(() => ({ data: [], count: 0 }))
})

describe('/properties search box', () => {
  it('follows the URL after in-page navigation and the back button', async () => {
    const { router } = await renderApp('/properties?query=Kilimani')
    const box = await screen.findByLabelText('Search properties')
    expect(box).toHaveValue('Kilimani')

    await act(async () => {
      await router.navigate('/properties?query=Mt.+Kenya')
    })
    await waitFor(() => expect(screen.getByLabelText('Search properties')).toHaveValue('Mt. Kenya'))

    await act(async () => {
      await router.navigate('/properties?type=Bedsitter')
    })
    await waitFor(() => expect(screen.getByLabelText('Search properties')).toHaveValue(''))

    await act(async () => {
      await router.navigate(-1)
    })
    await waitFor(() => expect(screen.getByLabelText('Search properties')).toHaveValue('Mt. Kenya'))
  })

  it('keeps what the user is typing until the URL changes', async () => {
    const { user } = await renderApp('/properties?query=Karen')
    const box = await screen.findByLabelText('Search properties')
    await user.type(box, ' estate')
    expect(box).toHaveValue('Karen estate')
  })
})

describe('/properties past the last page', () => {
  it('offers a way back instead of a dead-end empty state', async () => {
    fake.respondWith(() => ({ data: [], count: 13 }))
    const { user, router } = await renderApp('/properties?type=Warehouse&page=7')
    expect(await screen.findByRole('heading', { name: 'There is no page 7' })).toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'No properties found' })).not.toBeInTheDocument()
    expect(screen.getByText('These results end on page 2.')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Go to page 2' }))
    await waitFor(() => expect(router.state.location.search).toBe('?type=Warehouse&page=2'))
  })

  it('goes back to page 1 when all results fit on one page', async () => {
    fake.respondWith(() => ({ data: [], count: 3 }))
    const { user, router } = await renderApp('/properties?page=4')
    await user.click(await screen.findByRole('button', { name: 'Go to the first page' }))
    await waitFor(() => expect(router.state.location.search).toBe(''))
  })

  it('still shows the ordinary empty state when nothing matches', async () => {
    await renderApp('/properties?page=3')
    expect(await screen.findByRole('heading', { name: 'No properties found' })).toBeInTheDocument()
  })
})
