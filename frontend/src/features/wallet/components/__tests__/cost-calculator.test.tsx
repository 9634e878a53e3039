import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { describe, expect, it, vi } from 'vitest'

import { staticFeeRates } from '@/lib/listing-fees'

import { CostCalculator } from '../cost-calculator'

function renderCalculator(balance: number, onPurchase = vi.fn()) {
  const router = createMemoryRouter(
    [{ path: '/pricing', element: <CostCalculator rates={staticFeeRates} balance={balance} onPurchase={onPurchase} /> }],
    { initialEntries: ['/pricing'] },
  )
  render(<RouterProvider router={router} />)
  return { user: userEvent.setup(), onPurchase }
}

describe('CostCalculator', () => {
  it('reveals days and the summary once a type is chosen, and offers List Now when affordable', async () => {
    const { user } = renderCalculator(100)
    expect(screen.queryByLabelText('Number of days')).not.toBeInTheDocument()

    await user.selectOptions(screen.getByLabelText('Category'), 'rent')
    await user.selectOptions(screen.getByLabelText('Type'), 'Single Room')
    const days = screen.getByLabelText('Number of days')
    await user.clear(days)
    await user.type(days, '3')

    const summary = screen.getByLabelText('Cost summary')
    expect(within(summary).getByText('84 Nestcoins')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'List Now' })).toHaveAttribute('href', '/list-property')
  })

  it('shows Purchase Nestcoins when the balance does not cover the total', async () => {
    const { user, onPurchase } = renderCalculator(100)
    await user.selectOptions(screen.getByLabelText('Category'), 'land')
    await user.selectOptions(screen.getByLabelText('Type'), 'Industrial')
    const days = screen.getByLabelText('Number of days')
    await user.clear(days)
    await user.type(days, '2')
    expect(within(screen.getByLabelText('Cost summary')).getByText('210 Nestcoins')).toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'List Now' })).not.toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Purchase Nestcoins' }))
    expect(onPurchase).toHaveBeenCalledOnce()
  })

  it('turns non-numeric days into 1 and clears the type when the category changes', async () => {
    const { user } = renderCalculator(100)
    await user.selectOptions(screen.getByLabelText('Category'), 'market')
    await user.selectOptions(screen.getByLabelText('Type'), 'Mid (10,001 - 100,000 KES)')
    const days = screen.getByLabelText('Number of days')
    await user.clear(days)
    await user.type(days, 'abc')
    await user.tab()
    expect(days).toHaveValue('1')
    expect(within(screen.getByLabelText('Cost summary')).getAllByText('33 Nestcoins')).toHaveLength(2)

    await user.selectOptions(screen.getByLabelText('Category'), 'services')
    expect(screen.getByLabelText('Type')).toHaveValue('')
    expect(screen.queryByLabelText('Number of days')).not.toBeInTheDocument()
  })
})
