import { QueryClientProvider } from '@tanstack/react-query'
import type { ReactNode } from 'react'

import { getAppQueryClient } from './query-client'
import { useInjectedQueryClient } from './query-client-slot'

/**
 * The app's query client for lazily loaded parts of the shell (the inbox
 * badges and the notifications bell), which sit outside the data layout:
 * the same cache as the pages, so a page's change moves the badges at once.
 */
export function ShellQueryProvider({ children }: { children: ReactNode }) {
  const client = useInjectedQueryClient() ?? getAppQueryClient()
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>
}
