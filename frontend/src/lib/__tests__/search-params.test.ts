import { describe, expect, it } from 'vitest'

import { readTextParams } from '../search-params'

describe('readTextParams', () => {
  it.each([
    ['?query=Kilimani&type=Bedsitter', { query: 'Kilimani', type: 'Bedsitter' }],
    ['?query=%20%20Kilimani%20', { query: 'Kilimani' }],
    ['?query=%20%20&type=', {}],
    ['?other=x', {}],
    ['?query=a&query=b', { query: 'a' }],
  ])('%s reads as %o', (search, want) => {
    expect(readTextParams(new URLSearchParams(search), ['query', 'type'])).toEqual(want)
  })
})
