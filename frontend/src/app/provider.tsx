import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'

import { Toaster } from '@/components/ui/toaster'
import { AuthProvider, type AuthClient } from '@/lib/auth'
import { createQueryClient } from '@/lib/query-client'

type AppProviderProps = {
  children: ReactNode
  /** Injected by tests; the app uses supabase-js. */
  authClient?: AuthClient
  /** Injected by tests; the app makes its own. */
  queryClient?: QueryClient
}

/** Everything the pages share: data cache, session and the toast area. */
export function AppProvider({ children, authClient, queryClient }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createQueryClient())

  return (
    <QueryClientProvider client={client}>
      <AuthProvider client={authClient}>
        {children}
        <Toaster />
      </AuthProvider>
    </QueryClientProvider>
  )
}
