import { render, screen, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { describe, expect, it } from 'vitest'

import { parsePricing, type ServiceProvider } from '../../api/get-services'
import { ServiceCard } from '../service-card'

const provider: ServiceProvider = {
  id: 's1',
  userid: 'u1',
  name: 'Haraka Movers',
  category: 'Moving',
  location: 'Nairobi',
  description: null,
  services: ['Packing', 'Loading', 'Transport', 'Unpacking', 'Storage'],
  pricing: JSON.stringify([
    { title: 'Bedsitter move', price: 8000, duration: 'half day' },
    { title: 'Two bedroom move', price: 18000 },
    { title: 'Office move', price: 50000 },
  ]),
  reviews: [],
  rating: null,
  verified: true,
  profileimage: 'providers/haraka.jpg',
  is_active: true,
  payment_status: 'paid',
  paid_until: null,
  pending_days: 0,
  pending_fee: 0,
  moderation_notes: null,
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
}

describe('ServiceCard', () => {
  it('shows 3 services then +N more, 2 prices in KSh, New without a rating, and View Profile', () => {
    render(
      <MemoryRouter>
        <ServiceCard provider={provider} />
      </MemoryRouter>,
    )
    const services = within(screen.getByRole('list', { name: 'Services' })).getAllByRole('listitem')
    expect(services.map((item) => item.textContent)).toEqual(['Packing', 'Loading', 'Transport', '+2 more'])
    const pricing = screen.getByLabelText('Pricing')
    expect(within(pricing).getAllByRole('term').map((term) => term.textContent)).toEqual(['Bedsitter move', 'Two bedroom move'])
    expect(pricing).toHaveTextContent(/8,000 \/ half day/)
    // Spec §9: provider cards show their prices in 'KSh'.
    expect(pricing).toHaveTextContent(/^(?:(?!Ksh|KES).)*KSh 8,000/)
    expect(pricing).not.toHaveTextContent('Office move')
    expect(screen.getByText('New')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'View Profile' })).toHaveAttribute('href', '/service-provider/s1')
    expect(screen.getByRole('img', { name: 'Haraka Movers' }).getAttribute('src')).toMatch(
      /\/storage\/v1\/render\/image\/public\/images\/providers\/haraka\.jpg\?width=400$/,
    )
  })

  it('reads pricing stored as an array or JSON text, skipping bad entries', () => {
    expect(parsePricing([{ title: 'Aerial shoot', price: '12000' }, { nope: 1 }])).toEqual([
      { title: 'Aerial shoot', price: 12000, duration: undefined },
    ])
    expect(parsePricing('not json')).toEqual([])
    expect(parsePricing(null)).toEqual([])
  })
})
