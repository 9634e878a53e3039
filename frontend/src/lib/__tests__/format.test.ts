import { describe, expect, it } from 'vitest'

import { formatKES } from '../format'

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
})
