import { render, screen, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { describe, expect, it } from 'vitest'

import type { Land } from '../../api/get-lands'
import { LandCard, visibleFeatures } from '../land-card'

const land: Land = {
  id: 'l1',
  userid: 'u1',
  title: 'Quarter acre in Kitengela',
  location: 'Kitengela',
  description: 'Flat, ready title deed',
  type: 'Residential',
  purpose: 'Lease',
  price: 25000,
  size: 0.25,
  sizeUnit: 'acres',
  features: ['Water', 'Electricity', 'Fenced', 'Road access'],
  images: [],
  is_active: true,
  payment_status: 'paid',
  paid_until: null,
  pending_days: 0,
  pending_fee: 0,
  moderation_notes: null,
  createdAt: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
}

describe('LandCard', () => {
  it('shows purpose and type badges, price per month for leases, size and two features with +N', () => {
    render(
      <MemoryRouter>
        <LandCard land={land} />
      </MemoryRouter>,
    )
    expect(screen.getByText('For Lease')).toBeInTheDocument()
    expect(screen.getByText('Residential')).toBeInTheDocument()
    expect(screen.getByText(/25,000/)).toHaveTextContent(/\/month/)
    expect(screen.getByText('0.25 acres')).toBeInTheDocument()
    const features = within(screen.getByRole('list', { name: 'Features' })).getAllByRole('listitem')
    expect(features.map((item) => item.textContent)).toEqual(['Water', 'Electricity', '+2'])
    expect(screen.getByRole('img', { name: land.title })).toHaveAttribute('src', '/placeholder.svg')
    expect(screen.getByRole('link', { name: 'View Details' })).toHaveAttribute('href', '/lands/l1')
  })

  it('shows no /month for land on sale', () => {
    render(
      <MemoryRouter>
        <LandCard land={{ ...land, purpose: 'Sale', features: [] }} />
      </MemoryRouter>,
    )
    expect(screen.getByText('For Sale')).toBeInTheDocument()
    expect(screen.getByText(/25,000/)).not.toHaveTextContent('/month')
    expect(screen.queryByRole('list', { name: 'Features' })).not.toBeInTheDocument()
  })

  it('keeps at most 2 features', () => {
    expect(visibleFeatures(['a', 'b'])).toEqual({ shown: ['a', 'b'], more: 0 })
    expect(visibleFeatures(null)).toEqual({ shown: [], more: 0 })
  })
})
