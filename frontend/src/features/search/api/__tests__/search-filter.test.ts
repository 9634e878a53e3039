import { describe, expect, it } from 'vitest'

import { cleanSearch, MAX_SEARCH_LENGTH, searchFilter, searchPattern } from '../search-filter'

/**
 * Reads a PostgREST logic tree `col.op.value,col.op.value` back as the
 * server's grammar does: a value is either double-quoted (backslash escapes
 * any character) or runs up to the next `,` or `)`.
 */
function parseTree(tree: string): { column: string; operator: string; value: string }[] {
  const out: { column: string; operator: string; value: string }[] = []
  let rest = tree
  while (rest.length > 0) {
    const column = /^[a-z_]+/.exec(rest)?.[0]
    if (!column) throw new Error(`no column at ${rest}`)
    rest = rest.slice(column.length)
    const operator = /^\.([a-z]+)\./.exec(rest)?.[1]
    if (!operator) throw new Error(`no operator at ${rest}`)
    rest = rest.slice(operator.length + 2)
    let value = ''
    if (rest.startsWith('"')) {
      let i = 1
      for (; i < rest.length; i++) {
        if (rest[i] === '\\') value += rest[++i]
        else if (rest[i] === '"') break
        else value += rest[i]
      }
      if (i >= rest.length) throw new Error('unterminated quote')
      rest = rest.slice(i + 1)
    } else {
      const end = rest.search(/[,)]/)
      value = end < 0 ? rest : rest.slice(0, end)
      rest = end < 0 ? '' : rest.slice(end)
    }
    out.push({ column, operator, value })
    if (rest.startsWith(')')) throw new Error(`the value closed the group: ${rest}`)
    if (rest.startsWith(',')) rest = rest.slice(1)
  }
  return out
}

/** What PostgreSQL's ILIKE makes of a pattern after PostgREST turns * into %: a RegExp over the whole text. */
function ilikeRegExp(pattern: string): RegExp {
  const sql = pattern.replaceAll('*', '%')
  let source = ''
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i]
    if (char === '\\') source += (sql[++i] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    else if (char === '%') source += '.*'
    else if (char === '_') source += '.'
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  return new RegExp(`^${source}$`, 'is')
}

describe('cleanSearch', () => {
  it('trims, collapses blanks and caps the length', () => {
    expect(cleanSearch('  two   bedroom\tKilimani \n')).toBe('two bedroom Kilimani')
    expect(cleanSearch('x'.repeat(500))).toHaveLength(MAX_SEARCH_LENGTH)
  })
})

describe('searchPattern', () => {
  it('wraps the text in % for a contains match', () => {
    expect(searchPattern('Kilimani')).toBe('%Kilimani%')
  })

  it("escapes the user's own %, _ and backslash so they match literally", () => {
    expect(searchPattern('50%')).toBe('%50\\%%')
    expect(searchPattern('plot_12')).toBe('%plot\\_12%')
    expect(searchPattern('a\\b')).toBe('%a\\\\b%')
  })

  it('turns * (PostgREST has no escape for it) into one-character _', () => {
    expect(searchPattern('5*')).toBe('%5_%')
    expect(ilikeRegExp(searchPattern('5*')).test('Rated 5* stays')).toBe(true)
    expect(ilikeRegExp(searchPattern('5*')).test('5')).toBe(false)
  })
})

describe('searchFilter', () => {
  it('matches each column with ilike', () => {
    expect(searchFilter(['title', 'location'], 'Kilimani')).toBe('title.ilike.%Kilimani%,location.ilike.%Kilimani%')
  })

  it.each([
    'Kilimani, Nairobi',
    'Mt. Kenya',
    '0.5 acres (plot: 7)',
    'a),title.eq.(x',
    'x,is_active.is.false',
    'say "hi" \\o/',
    "O'Brien's plot",
    '50% off_now*',
    ')(,.:"\\*%_',
  ])('keeps %j one value per column, never a new condition', (text) => {
    const columns = ['name', 'category', 'description', 'location']
    const parsed = parseTree(searchFilter(columns, text))
    expect(parsed.map((part) => part.column)).toEqual(columns)
    expect(parsed.every((part) => part.operator === 'ilike')).toBe(true)
    for (const part of parsed) expect(part.value).toBe(searchPattern(text))
  })

  it.each([
    ['Kilimani, Nairobi', 'Spacious flat in Kilimani, Nairobi near Yaya', 'Kilimani Nairobi'],
    ['50%', 'Discount 50% today', 'Discount 500 today'],
    ['plot_12', 'See plot_12 now', 'See plotX12 now'],
    ['(plot: 7)', 'Ruiru (plot: 7)', 'Ruiru plot 7'],
    ['say "hi"', 'they say "hi" there', 'they say hi there'],
  ])('%j, sent through the grammar, matches %j and not %j', (text, matching, other) => {
    const [{ value }] = parseTree(searchFilter(['title'], text))
    expect(ilikeRegExp(value).test(matching)).toBe(true)
    expect(ilikeRegExp(value).test(other)).toBe(false)
  })

  it('matches case-insensitively', () => {
    const [{ value }] = parseTree(searchFilter(['title'], 'KILIMANI'))
    expect(ilikeRegExp(value).test('flat in kilimani')).toBe(true)
  })
})
