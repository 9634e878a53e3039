import { describe, expect, it } from 'vitest'

import { containsAny, containsPattern, orValue } from '../pagination'

/** Reads one value of a PostgREST logic tree back, as the server's grammar does (quoted with backslash escapes, or up to , or ). */
function readLogicValue(source: string): { value: string; rest: string } {
  if (source.startsWith('"')) {
    let value = ''
    for (let i = 1; i < source.length; i++) {
      if (source[i] === '\\') value += source[++i]
      else if (source[i] === '"') return { value, rest: source.slice(i + 1) }
      else value += source[i]
    }
    throw new Error('unterminated quote')
  }
  const end = source.search(/[,)]/)
  return end < 0 ? { value: source, rest: '' } : { value: source.slice(0, end), rest: source.slice(end) }
}

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

describe('orValue / containsAny (or=() logic tree)', () => {
  it('leaves plain values unquoted', () => {
    expect(orValue('%Kilimani%')).toBe('%Kilimani%')
    expect(containsAny(['title', 'location'], 'Kilimani')).toBe('title.ilike.%Kilimani%,location.ilike.%Kilimani%')
  })

  it('double-quotes values holding , . : ( ) and escapes " and \\', () => {
    expect(orValue('%Kilimani, Nairobi%')).toBe('"%Kilimani, Nairobi%"')
    expect(orValue('%Mt. Kenya%')).toBe('"%Mt. Kenya%"')
    expect(orValue('a:b')).toBe('"a:b"')
    expect(orValue('(x)')).toBe('"(x)"')
    expect(orValue('say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"')
    expect(containsAny(['title', 'location'], '0.5 acres')).toBe('title.ilike."%0.5 acres%",location.ilike."%0.5 acres%"')
  })

  it('round-trips through the logic-tree grammar to the exact ilike pattern, without changing the filter shape', () => {
    for (const text of ['Kilimani, Nairobi', 'Mt. Kenya', '0.5 acres', 'a),title.eq.(x', 'quote " and \\ slash', '50% off_now']) {
      const tree = containsAny(['title', 'location'], text)
      const first = tree.slice('title.ilike.'.length)
      const { value, rest } = readLogicValue(first)
      expect(value).toBe(containsPattern(text))
      expect(rest.startsWith(',location.ilike.')).toBe(true)
      expect(readLogicValue(rest.slice(',location.ilike.'.length))).toEqual({ value: containsPattern(text), rest: '' })
    }
  })
})
