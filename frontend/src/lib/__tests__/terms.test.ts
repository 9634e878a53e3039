import { afterEach, describe, expect, it } from 'vitest'

import { propertyTypes, productCategories } from '@/config/listings'

import { formatDate } from '../format'
import { loadSwahili, setLanguage } from '../i18n/i18n'
import { feeRateLabel, term, termOptions } from '../i18n/terms'

afterEach(() => setLanguage('en'))

describe('listing vocabulary labels', () => {
  it('shows stored values as they are in English and translated in Kiswahili', async () => {
    expect(term('Four+ Bedroom')).toBe('Four+ Bedroom')
    await loadSwahili()
    setLanguage('sw')
    expect(term('Warehouse')).toBe('Ghala')
    expect(term('Mixed Use')).toBe('Matumizi Mseto')
    expect(termOptions(['Rent', 'Sale'])).toEqual([
      { value: 'Rent', label: 'Ya Kupanga' },
      { value: 'Sale', label: 'Inauzwa' },
    ])
  })

  it('labels every property type and product category, and leaves unknown values alone', async () => {
    await loadSwahili()
    setLanguage('sw')
    for (const value of [...propertyTypes, ...productCategories]) expect(term(value)).not.toBe('')
    expect(termOptions(propertyTypes).filter((option) => option.label === option.value).map((option) => option.value)).toEqual(['Bedsitter'])
    expect(term('Penthouse')).toBe('Penthouse')
    expect(term(null)).toBe('')
  })

  it('labels fee rows: types by vocabulary, price tiers by their band word with the range kept', async () => {
    expect(feeRateLabel('Mid (5M - 25M KES)')).toBe('Mid (5M - 25M KES)')
    await loadSwahili()
    setLanguage('sw')
    expect(feeRateLabel('Mid (5M - 25M KES)')).toBe('Kati (5M - 25M KES)')
    expect(feeRateLabel('High (100,001 - 500,000 KES)')).toBe('Juu (100,001 - 500,000 KES)')
    expect(feeRateLabel('Office Space')).toBe('Nafasi ya Ofisi')
    expect(feeRateLabel('Drone Based')).toBe('Huduma za Drone')
    expect(feeRateLabel('Lowland special')).toBe('Lowland special')
  })

  it('formats dates for the Kenyan locale of the language', () => {
    expect(formatDate('2026-11-01T08:00:00Z', 'en')).toBe('1 Nov 2026')
    expect(formatDate('2026-11-01T08:00:00Z', 'sw')).toMatch(/2026/)
  })
})
