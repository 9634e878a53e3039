import { describe, expect, it } from 'vitest'

import { prefixQuery } from '../search-query'

describe('prefixQuery', () => {
  it.each([
    ['Kilimani', 'kilimani:*'],
    ['  Kilim 2 bedr ', 'kilim:* & 2:* & bedr:*'],
    ['Nyumba, Kisumu.', 'nyumba:* & kisumu:*'],
    ["o'neil & !(x | y):*", 'o:* & neil:* & x:* & y:*'],
    ['Ruiru–Thika', 'ruiru:* & thika:*'],
    ['Café Élan', 'café:* & élan:*'],
    ['', ''],
    ['  !&|()  ', ''],
  ])('%j -> %j', (input, want) => {
    expect(prefixQuery(input)).toBe(want)
  })

  it('reads at most 200 characters', () => {
    expect(prefixQuery(`${'a'.repeat(199)} bbb`)).toBe(`${'a'.repeat(199)}:*`)
  })
})
