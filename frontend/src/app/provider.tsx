import type { QueryClient } from '@tanstack/react-query'
import type { ReactNode } from 'react'

import { Toaster } from '@/components/ui/toaster'
import { AuthProvider, type AuthClient } from '@/lib/auth'
import { QueryClientSlot } from '@/lib/query-client-slot'

type AppProviderProps = {
  children: ReactNode
  /** Injected by tests; the app uses supabase-js. */
  authClient?: AuthClient
  /** Injected by tests; the app makes its own in the data layout. */
  queryClient?: QueryClient
}

/**
 * Everything the pages share: session and the toast area. The data cache
 * (TanStack Query) is provided by the lazily loaded data layout, so the
 * landing page does not download it.
 */
export function AppProvider({ children, authClient, queryClient }: AppProviderProps) {
  return (
    <QueryClientSlot.Provider value={queryClient}>
      <AuthProvider client={authClient}>
        {children}
        <Toaster />
      </AuthProvider>
    </QueryClientSlot.Provider>
  )
}
