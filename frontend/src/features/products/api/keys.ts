export type ProductFilters = {
  category?: string
  status?: string
  location?: string
  query?: string
  page: number
}

/** Query keys of the products (marketplace) feature. */
export const productKeys = {
  all: ['products'] as const,
  /** The signed-in owner's own listings, active or not (the My page). */
  mine: (userId: string) => [...productKeys.all, 'mine', userId] as const,
  lists: () => [...productKeys.all, 'list'] as const,
  list: (filters: ProductFilters) => [...productKeys.lists(), filters] as const,
  details: () => [...productKeys.all, 'detail'] as const,
  detail: (id: string) => [...productKeys.details(), id] as const,
  similar: (id: string) => [...productKeys.all, 'similar', id] as const,
}
