import { describe, expect, it } from 'vitest'

import {
  isPriceAboveCap,
  listingCost,
  MAX_MARKET_PRICE,
  MAX_SALE_PRICE,
  parseDays,
  perDayFee,
  ratesOf,
  staticFeeRates,
  type FeeRate,
} from '../listing-fees'

describe('listing fees (spec §9)', () => {
  it('prices rentals by type and sales by price tier', () => {
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Rent', type: 'Bedsitter', price: 9000 })).toBe(33)
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Rent', type: 'Warehouse', price: 1 })).toBe(100)
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Sale', type: 'Bedsitter', price: 5_000_000 })).toBe(75)
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Sale', type: 'Bedsitter', price: 5_000_001 })).toBe(150)
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Sale', type: 'Bedsitter', price: 90_000_000 })).toBe(225)
  })

  it('prices products by tier, services by category and land by type', () => {
    expect(perDayFee(staticFeeRates, 'product', { price: 10_000 })).toBe(18)
    expect(perDayFee(staticFeeRates, 'product', { price: 10_001 })).toBe(33)
    expect(perDayFee(staticFeeRates, 'product', { price: 100_001 })).toBe(45)
    expect(perDayFee(staticFeeRates, 'service', { type: 'Drone' })).toBe(40)
    expect(perDayFee(staticFeeRates, 'service', { type: 'Moving' })).toBe(35)
    expect(perDayFee(staticFeeRates, 'land', { type: 'Industrial' })).toBe(105)
    expect(perDayFee(staticFeeRates, 'land', { type: 'Swamp' })).toBeNull()
  })

  it('has the five tabs with the spec rows', () => {
    expect(ratesOf(staticFeeRates, 'rent')).toHaveLength(10)
    expect(ratesOf(staticFeeRates, 'sale').map((rate) => rate.per_day)).toEqual([75, 150, 225])
    expect(ratesOf(staticFeeRates, 'land').map((rate) => rate.label)).toEqual([
      'Residential',
      'Commercial',
      'Agricultural',
      'Industrial',
      'Mixed Use',
    ])
  })

  it('reads days as a whole number of at least 1; anything else becomes 1', () => {
    expect(parseDays('3')).toBe(3)
    expect(parseDays('7.9')).toBe(7)
    expect(parseDays('0')).toBe(1)
    expect(parseDays('-4')).toBe(1)
    expect(parseDays('abc')).toBe(1)
    expect(parseDays('')).toBe(1)
    expect(parseDays('1000')).toBe(365)
  })

  it('totals per day × days and allows listing only when the balance covers it', () => {
    expect(listingCost(28, 3, 100)).toEqual({ perDay: 28, days: 3, total: 84, canAfford: true })
    expect(listingCost(28, 4, 100)).toEqual({ perDay: 28, days: 4, total: 112, canAfford: false })
    expect(listingCost(50, 2, 100).canAfford).toBe(true)
  })

  it('caps the top sale and marketplace tiers at the table limits (150M and 500,000 KES)', () => {
    expect(MAX_SALE_PRICE).toBe(150_000_000)
    expect(MAX_MARKET_PRICE).toBe(500_000)
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Sale', type: 'Bedsitter', price: 150_000_000 })).toBe(225)
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Sale', type: 'Bedsitter', price: 150_000_001 })).toBeNull()
    expect(perDayFee(staticFeeRates, 'product', { price: 500_000 })).toBe(45)
    expect(perDayFee(staticFeeRates, 'product', { price: 500_001 })).toBeNull()
    // Rentals are priced by type, whatever the rent.
    expect(perDayFee(staticFeeRates, 'property', { purpose: 'Rent', type: 'Warehouse', price: 900_000_000 })).toBe(100)
    expect(isPriceAboveCap('property', { purpose: 'Sale', price: 150_000_001 })).toBe(true)
    expect(isPriceAboveCap('property', { purpose: 'Rent', price: 150_000_001 })).toBe(false)
    expect(isPriceAboveCap('product', { price: 500_001 })).toBe(true)
    expect(isPriceAboveCap('land', { price: 10_000_000_000 })).toBe(false)
  })

  it('keeps the cap with rates whose top tiers are open-ended (an admin may clear max_price)', () => {
    const server: FeeRate[] = staticFeeRates.map((rate) =>
      rate.label.startsWith('High') ? { ...rate, max_price: null } : rate,
    )
    expect(perDayFee(server, 'property', { purpose: 'Sale', price: 149_999_999 })).toBe(225)
    expect(perDayFee(server, 'property', { purpose: 'Sale', price: 200_000_000 })).toBeNull()
    expect(perDayFee(server, 'product', { price: 600_000 })).toBeNull()
  })
})
