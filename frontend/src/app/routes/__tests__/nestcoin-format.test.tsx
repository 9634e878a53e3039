import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'

import { CostSummary } from '@/features/wallet/components/cost-summary'
import { listingCost } from '@/lib/listing-fees'

describe('Nestcoin amounts', () => {
  it('are digit-grouped in the cost summary', () => {
    render(<CostSummary cost={listingCost(225, 30, 12_500)} balance={12_500} />)
    expect(screen.getByText('6,750 Nestcoins')).toBeInTheDocument()
    expect(screen.getByText('12,500 Nestcoins')).toBeInTheDocument()
    expect(screen.getByText('225 Nestcoins')).toBeInTheDocument()
  })
})
