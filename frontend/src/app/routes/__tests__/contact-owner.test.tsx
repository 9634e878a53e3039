import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import type { Request } from '@/testing/fake-supabase'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const session = fakeSession()
const id = '0e5a0000-0000-4000-8000-0000000000b1'
const ownerId = '0e5a0000-0000-4000-8000-000000000009'

const product = {
  id,
  user_id: ownerId,
  name: 'Three-seater sofa',
  category: 'Furniture',
  condition: 'Used - Good',
  price: 18_000,
  location: 'Kilimani, Nairobi',
  description: 'Grey fabric, no stains.',
  images: [],
  contact: null,
  is_active: true,
  payment_status: 'paid',
  paid_until: '2099-01-01T00:00:00Z',
  created_at: '2026-11-01T08:00:00Z',
}

/** The detail row for maybeSingle() reads; lists answer nothing. */
function answer(row: object) {
  fake.respondWith(({ calls }: Request) => ({ data: calls.some(([method]) => method === 'maybeSingle') ? row : [] }))
}

/** get_listing_owner answers the owner facts; start_conversation answers `started` (an id or an Error). */
function rpcs(started: string | Error = 'c0000000-0000-4000-8000-0000000000c1') {
  fake.client.rpc.mockImplementation((name: string) => {
    const request = {
      abortSignal: () => request,
      throwOnError: async () => {
        if (name === 'get_listing_owner') return { data: { kyc_verified: false, contact: '0711 000 111' } }
        if (name === 'start_conversation') {
          if (started instanceof Error) throw started
          return { data: started }
        }
        return { data: null }
      },
    }
    return request
  })
}

const startCalls = () => fake.client.rpc.mock.calls.filter(([name]) => name === 'start_conversation')

beforeEach(() => {
  fake.client.rpc.mockReset()
  answer(product)
  rpcs()
})

describe('"Message the owner" on a detail page', () => {
  it('sends the first message and opens the conversation', async () => {
    const { user, router } = await renderApp(`/marketplace/${id}`, { session })
    await user.click(await screen.findByRole('button', { name: 'Message the owner' }))
    const dialog = await screen.findByRole('dialog', { name: 'Message the owner' })
    expect(dialog).toHaveAccessibleDescription(/The owner reads it in their KejaNest Messages/)

    await user.click(within(dialog).getByRole('button', { name: 'Send message' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Write a message first')
    expect(startCalls()).toEqual([])

    await user.type(within(dialog).getByLabelText('Your message'), '  Is the sofa still available?  ')
    await user.click(within(dialog).getByRole('button', { name: 'Send message' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/messages/c0000000-0000-4000-8000-0000000000c1'))
    expect(startCalls()).toEqual([
      ['start_conversation', { p_kind: 'product', p_listing_id: id, p_body: 'Is the sofa still available?' }],
    ])
    expect(visibleToasts()[0]).toHaveTextContent('Message sent')
  })

  it("shows the server's reason and keeps the message", async () => {
    rpcs(new Error('Listing not found'))
    const { user } = await renderApp(`/marketplace/${id}`, { session })
    await user.click(await screen.findByRole('button', { name: 'Message the owner' }))
    const dialog = await screen.findByRole('dialog')
    await user.type(within(dialog).getByLabelText('Your message'), 'Hello')
    await user.click(within(dialog).getByRole('button', { name: 'Send message' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('This listing is no longer available')
    expect(within(dialog).getByLabelText('Your message')).toHaveValue('Hello')
  })

  it('is not offered to the owner', async () => {
    answer({ ...product, user_id: session.user.id })
    await renderApp(`/marketplace/${id}`, { session })
    expect(await screen.findByRole('heading', { level: 1, name: 'Three-seater sofa' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Message the owner' })).not.toBeInTheDocument()
  })

  it('asks a visitor to sign in and brings them back', async () => {
    const { user, router } = await renderApp(`/marketplace/${id}`)
    await user.click(await screen.findByRole('link', { name: 'Sign in to message the owner' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: `/marketplace/${id}` })
  })
})
