import { describe, expect, it } from 'vitest'

import { formatKES, formatKSh, formatNestcoins } from '../format'

// Intl may separate the symbol with a no-break space; normalise it.
const plain = (value: string) => value.replace(/\s/g, ' ')

describe('formatKES', () => {
  it.each([
    [1500, 'Ksh 1,500'],
    [0, 'Ksh 0'],
    [2_500_000, 'Ksh 2,500,000'],
    [1234.56, 'Ksh 1,235'],
    [999.4, 'Ksh 999'],
  ])('formats %d as %s with no decimals', (amount, expected) => {
    expect(plain(formatKES(amount))).toBe(expected)
  })

  it('never shows a decimal separator', () => {
    expect(formatKES(10.99)).not.toMatch(/\.\d/)
  })

  it("prints service-card prices in 'KSh' (spec §9), whole shillings", () => {
    expect(formatKSh(15_000)).toBe('KSh 15,000')
    expect(formatKSh(1234.56)).toBe('KSh 1,235')
  })
})

describe('formatNestcoins', () => {
  it('groups digits in both languages', () => {
    expect(formatNestcoins(15_500, 'en')).toBe('15,500')
    expect(formatNestcoins(32_000, 'sw')).toMatch(/^32[,.\s\u00a0]000$/)
    expect(formatNestcoins(100, 'en')).toBe('100')
  })
})
