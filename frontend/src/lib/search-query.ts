/**
 * The words of a search box as a PostgreSQL prefix tsquery for PostgREST's
 * `fts` operator on the listing tables' `search` vectors
 * (sql/migrations/0027_listing_search.sql): every run of letters and digits
 * becomes `word:*`, all required, so "Kilim 2 bedr" finds "Two bedrooms in
 * Kilimani" and anything else the user types (`&`, `!`, quotes, brackets) only
 * separates words and can never make the query invalid. The server's
 * public.search_query() does the same for the ranked search_listings() RPC;
 * both must agree.
 * Returns '' when no word is left (then do not filter at all).
 */
export function prefixQuery(text: string): string {
  return text
    .slice(0, 200)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
    .map((word) => `${word}:*`)
    .join(' & ')
}

/** Options of supabase-js `.textSearch()` for the `search` vectors (PostgREST `fts(english)`). */
export const searchOptions = { config: 'english' } as const
