import { describe, expect, it } from 'vitest'

import { containsPattern } from '../pagination'

describe('containsPattern (plain ilike)', () => {
  it('keeps punctuation as typed', () => {
    expect(containsPattern('Kilimani, Nairobi')).toBe('%Kilimani, Nairobi%')
    expect(containsPattern('Mt. Kenya')).toBe('%Mt. Kenya%')
    expect(containsPattern(' 0.5 acres (plot: 7) ')).toBe('%0.5 acres (plot: 7)%')
  })

  it("escapes a user's literal %, _ and backslash for ILIKE", () => {
    expect(containsPattern('50%')).toBe('%50\\%%')
    expect(containsPattern('plot_12')).toBe('%plot\\_12%')
    expect(containsPattern('a\\b')).toBe('%a\\\\b%')
  })
})
