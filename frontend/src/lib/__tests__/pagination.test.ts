import { describe, expect, it } from 'vitest'

import { containsPattern, settledCount } from '../pagination'

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

describe('settledCount (count: estimated)', () => {
  it.each([
    // [count, from, received, want]
    [30, 0, 12, 30], // a full page keeps the estimate
    [5, 12, 12, 24], // an estimate below the rows seen is raised to them
    [100000, 24, 7, 31], // a short page is the last: the total is exact
    [3, 0, 3, 3],
    [0, 0, 0, 0],
    [null, 0, 0, 0],
    [50, 36, 0, 36], // past the end: at most the page's start
    [20, 36, 0, 20],
  ])('count %s, from %s, %s rows → %s', (count, from, received, want) => {
    expect(settledCount(count, from, received)).toBe(want)
  })
})
