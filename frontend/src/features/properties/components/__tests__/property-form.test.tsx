import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

describe('/list-property', () => {
  it('shows the validation messages and sends nothing', async () => {
    const { user } = await renderApp('/list-property', { session: fakeSession() })
    await user.click(await screen.findByRole('button', { name: 'Save and continue to payment' }))

    expect(await screen.findByText('Title is required')).toBeInTheDocument()
    expect(screen.getByText('Enter a price in KES (a whole number, 0 or more)')).toBeInTheDocument()
    expect(screen.getByText('Location is required')).toBeInTheDocument()
    expect(screen.getByText('Enter a Kenyan phone number, e.g. 0712 345 678')).toBeInTheDocument()
    expect(screen.getByLabelText('Title')).toHaveAttribute('aria-invalid', 'true')
    expect(fake.requestsOf('properties')).toHaveLength(0)
  })

  it('hides the deposit for sales, saves the listing and moves on to payment with the per-day fee', async () => {
    fake.respondWith(({ table }) =>
      table === 'properties'
        ? { data: { id: 'p9', type: 'Bedsitter', purpose: 'Rent', price: 9000 } }
        : table === 'wallets'
          ? { data: { balance: 100 } }
          : { data: [] },
    )
    const { user } = await renderApp('/list-property', { session: fakeSession() })
    await user.selectOptions(await screen.findByLabelText('Purpose'), 'Sale')
    expect(screen.queryByLabelText('Deposit (KES)')).not.toBeInTheDocument()
    await user.selectOptions(screen.getByLabelText('Purpose'), 'Rent')

    await user.type(screen.getByLabelText('Title'), 'Bedsitter near Kenyatta University')
    await user.selectOptions(screen.getByLabelText('Property type'), 'Bedsitter')
    await user.type(screen.getByLabelText('Rent per month (KES)'), '9000')
    await user.type(screen.getByLabelText('Deposit (KES)'), '9000')
    await user.type(screen.getByLabelText('Location'), 'Kahawa Wendani')
    await user.type(screen.getByLabelText('Contact phone'), '0712 345 678')
    await user.click(screen.getByRole('button', { name: 'Save and continue to payment' }))

    expect(await screen.findByRole('heading', { name: 'Pay and publish' })).toBeInTheDocument()
    const [insert] = fake.requestsOf('properties')
    expect(insert.calls[0]).toEqual([
      'insert',
      {
        title: 'Bedsitter near Kenyatta University',
        type: 'Bedsitter',
        purpose: 'Rent',
        price: 9000,
        deposit: 9000,
        location: 'Kahawa Wendani',
        description: null,
        contact: '0712345678',
        images: [],
      },
    ])
    const days = screen.getByLabelText('Number of days')
    await user.clear(days)
    await user.type(days, '3')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Pay 99 Nestcoins' })).toBeEnabled())
  })
})
