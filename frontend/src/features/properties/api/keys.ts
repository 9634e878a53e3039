export type PropertyFilters = {
  type?: string
  location?: string
  purpose?: string
  query?: string
  /** 'Commercial' groups office, retail and warehouse space (landing tile). */
  category?: string
  page: number
}

/** Query keys of the properties feature. */
export const propertyKeys = {
  all: ['properties'] as const,
  /** The signed-in owner's own listings, active or not (the My page). */
  mine: (userId: string) => [...propertyKeys.all, 'mine', userId] as const,
  lists: () => [...propertyKeys.all, 'list'] as const,
  list: (filters: PropertyFilters) => [...propertyKeys.lists(), filters] as const,
  details: () => [...propertyKeys.all, 'detail'] as const,
  detail: (id: string) => [...propertyKeys.details(), id] as const,
  similar: (id: string) => [...propertyKeys.all, 'similar', id] as const,
}
