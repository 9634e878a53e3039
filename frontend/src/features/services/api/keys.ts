export type ServiceFilters = {
  category?: string
  search?: string
  page: number
}

/** Query keys of the service providers feature. */
export const serviceKeys = {
  all: ['services'] as const,
  /** The signed-in owner's own listings, active or not (the My page). */
  mine: (userId: string) => [...serviceKeys.all, 'mine', userId] as const,
  lists: () => [...serviceKeys.all, 'list'] as const,
  list: (filters: ServiceFilters) => [...serviceKeys.lists(), filters] as const,
  details: () => [...serviceKeys.all, 'detail'] as const,
  detail: (id: string) => [...serviceKeys.details(), id] as const,
  similar: (id: string) => [...serviceKeys.all, 'similar', id] as const,
  /** The owner's full row (phone included) for the edit form; apart from `detail`, which holds the public columns. */
  own: (id: string, userId: string) => [...serviceKeys.all, 'own', id, userId] as const,
}
