import { orValue } from '@/lib/pagination'

/** The longest search the app sends; the box refuses more. */
export const MAX_SEARCH_LENGTH = 100

/** A search as typed, tidied: trimmed, blank runs as one space, at most MAX_SEARCH_LENGTH characters. */
export function cleanSearch(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_SEARCH_LENGTH)
}

/**
 * The ILIKE "contains" pattern of a search: `%<text>%` where the user's own
 * `%`, `_` and `\` are escaped with a backslash (ILIKE's escape character),
 * so "50%" or "plot_12" match literally. PostgREST turns every `*` of a
 * like pattern into `%` and has no escape for it, so a typed `*` becomes `_`
 * (any one character, which includes `*` itself) instead of "anything".
 */
export function searchPattern(text: string): string {
  const escaped = cleanSearch(text)
    .replace(/[\\%_]/g, (char) => `\\${char}`)
    .replace(/\*/g, '_')
  return `%${escaped}%`
}

/**
 * The `.or()` filter matching a search (case-insensitive contains) in any of
 * `columns`: `title.ilike.<pattern>,location.ilike.<pattern>`, the pattern
 * double-quoted (with `"` and `\` escaped) whenever it holds a character of
 * PostgREST's logic grammar (`,` `.` `:` `(` `)` quotes, backslash, blanks),
 * so user text can never close the group or add a condition.
 */
export function searchFilter(columns: readonly string[], text: string): string {
  const value = orValue(searchPattern(text))
  return columns.map((column) => `${column}.ilike.${value}`).join(',')
}
