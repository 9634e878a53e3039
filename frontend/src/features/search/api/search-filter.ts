/** The longest search the app sends; the box refuses more. */
export const MAX_SEARCH_LENGTH = 100

/** A search as typed, tidied: trimmed, blank runs as one space, at most MAX_SEARCH_LENGTH characters. */
export function cleanSearch(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_SEARCH_LENGTH)
}
