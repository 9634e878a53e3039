import type { QueryClient } from '@tanstack/react-query'
import { createContext, useContext } from 'react'

/**
 * Carries a query client injected by tests from AppProvider to the data
 * layout. Only a type is imported here, so TanStack Query stays out of the
 * entry chunk: the data layout (a lazy route) loads it with the first page
 * that fetches.
 */
export const QueryClientSlot = createContext<QueryClient | undefined>(undefined)

export function useInjectedQueryClient(): QueryClient | undefined {
  return useContext(QueryClientSlot)
}
