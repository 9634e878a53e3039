import type { ListingKind } from '@/lib/listing-fees'

/** Query keys of saved listings; everything is per user (the cache is cleared when the user changes). */
export const savedKeys = {
  all: ['saved'] as const,
  user: (userId: string) => [...savedKeys.all, userId] as const,
  /** The ids of one kind the user saved: one query per kind, shared by every heart on the page. */
  ids: (userId: string, kind: ListingKind) => [...savedKeys.user(userId), 'ids', kind] as const,
  /** The /saved page: the saved rows with their listings. */
  list: (userId: string) => [...savedKeys.user(userId), 'list'] as const,
}
