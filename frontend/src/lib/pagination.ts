/** Listings per page on the browse screens (server-side pagination). */
export const PAGE_SIZE = 12

/** The inclusive row range of a 1-based page, for PostgREST `.range()`. */
export function pageRange(page: number, size = PAGE_SIZE): [number, number] {
  const safe = Number.isFinite(page) && page >= 1 ? Math.floor(page) : 1
  const from = (safe - 1) * size
  return [from, from + size - 1]
}

/** Number of pages for `count` rows (at least 1). */
export function pageCount(count: number, size = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(count / size))
}

/**
 * The total behind one page whose count PostgREST may have estimated
 * (`count: 'estimated'`: exact up to the server's max-rows, the planner's
 * guess above it). A short page is the last one, so it settles the total;
 * a full page proves at least the rows up to its end exist; a page past
 * the end caps the total at its start.
 */
export function settledCount(count: number | null, from: number, received: number, size = PAGE_SIZE): number {
  const estimate = count ?? 0
  if (received >= size) return Math.max(estimate, from + received)
  if (received > 0 || from === 0) return from + received
  return Math.min(estimate, from)
}

/** A page of rows and the total count across all pages. */
export type Page<T> = { items: T[]; count: number }

/**
 * A case-insensitive "contains" pattern for `ilike`: the text between `%`s,
 * with the user's literal `\`, `%` and `_` escaped by a backslash (ILIKE's
 * default escape character), so "50%" or "plot_12" match literally. `*` is
 * PostgREST's spelling of `%` and stays a wildcard. Nothing else changes:
 * "Kilimani, Nairobi" or "Mt. Kenya" match as typed (supabase-js URL-encodes
 * the value of a plain `.ilike()`).
 */
export function containsPattern(text: string): string {
  const clean = text.trim().replace(/[\\%_]/g, (char) => `\\${char}`)
  return `%${clean}%`
}

/** Reads a 1-based page number from a URL parameter. */
export function parsePage(value: string | null): number {
  const page = Number.parseInt(value ?? '', 10)
  return Number.isFinite(page) && page >= 1 ? page : 1
}
