import { describe, expect, it } from 'vitest'

import { cleanSearch, MAX_SEARCH_LENGTH } from '../search-filter'

describe('cleanSearch', () => {
  it('trims, collapses blanks and caps the length', () => {
    expect(cleanSearch('  two   bedroom\tKilimani \n')).toBe('two bedroom Kilimani')
    expect(cleanSearch('x'.repeat(500))).toHaveLength(MAX_SEARCH_LENGTH)
  })
})
