import type { LandSort } from '@/config/listings'

export type LandFilters = {
  search?: string
  type?: string
  purpose?: string
  sort: LandSort
  page: number
}

/** Query keys of the lands feature. */
export const landKeys = {
  all: ['lands'] as const,
  /** The signed-in owner's own listings, active or not (the My page). */
  mine: (userId: string) => [...landKeys.all, 'mine', userId] as const,
  lists: () => [...landKeys.all, 'list'] as const,
  list: (filters: LandFilters) => [...landKeys.lists(), filters] as const,
  details: () => [...landKeys.all, 'detail'] as const,
  detail: (id: string) => [...landKeys.details(), id] as const,
  similar: (id: string) => [...landKeys.all, 'similar', id] as const,
}
