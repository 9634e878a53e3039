import type { ListingKind } from '@/lib/listing-fees'

/** Query keys of /search. */
export const searchKeys = {
  all: ['search'] as const,
  kind: (kind: ListingKind, q: string) => [...searchKeys.all, kind, q] as const,
}
