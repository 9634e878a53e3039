import { act, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'

import { createProductSchema } from '@/features/products/api/create-product'
import { createPropertySchema } from '@/features/properties/api/create-property'
import { setLanguage } from '@/lib/i18n/i18n'
import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

const property = {
  title: 'Villa in Karen',
  type: 'Four+ Bedroom',
  purpose: 'Sale',
  location: 'Karen',
  description: '',
  contact: '0712345678',
  images: [],
} as const

const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.error?.issues.map((issue) => [issue.path.join('.'), issue.message]) ?? []

afterEach(async () => {
  await act(async () => {
    setLanguage('en')
  })
})

describe('price caps of the fee table (spec §9)', () => {
  it('refuses a sale above 150,000,000 KES, not a rent, and a product above 500,000 KES', () => {
    expect(createPropertySchema.safeParse({ ...property, price: 150_000_000 }).success).toBe(true)
    expect(issuesOf(createPropertySchema.safeParse({ ...property, price: 150_000_001 }))).toEqual([
      ['price', 'validation.salePriceTooHigh'],
    ])
    // Also alongside other field errors.
    expect(issuesOf(createPropertySchema.safeParse({ ...property, title: '', price: 200_000_000 }))).toContainEqual([
      'price',
      'validation.salePriceTooHigh',
    ])
    expect(createPropertySchema.safeParse({ ...property, purpose: 'Rent', price: 200_000_000 }).success).toBe(true)

    const product = { name: 'Sofa', status: 'Used', category: 'Furniture', value_range: 'Basic', description: '', location: 'Nairobi', contact: '0712345678', images: [] }
    expect(createProductSchema.safeParse({ ...product, price: 500_000 }).success).toBe(true)
    expect(issuesOf(createProductSchema.safeParse({ ...product, price: 500_001 }))).toEqual([['price', 'validation.marketPriceTooHigh']])
  })

  it('the property form explains the cap in English and Kiswahili and saves nothing', async () => {
    const { user } = await renderApp('/list-property', { session: fakeSession() })
    await user.selectOptions(await screen.findByLabelText('Purpose'), 'Sale')
    await user.type(screen.getByLabelText('Price (KES)'), '150000001')
    const message = "Sale prices above KES 150,000,000 cannot be listed: the fee table's highest tier is 25M - 150M KES."
    // The fee estimate says it at once, the field error on submit.
    expect(await screen.findByText(message)).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Save and continue to payment' }))
    expect(await screen.findAllByText(message)).toHaveLength(2)
    expect(screen.getByLabelText('Price (KES)')).toHaveAttribute('aria-invalid', 'true')
    expect(fake.requestsOf('properties')).toHaveLength(0)

    await act(async () => {
      setLanguage('sw')
    })
    expect(
      await screen.findAllByText('Bei za mauzo zaidi ya KES 150,000,000 haziwezi kuorodheshwa: daraja la juu la jedwali la ada ni KES milioni 25 - 150.'),
    ).not.toHaveLength(0)
  })
})
