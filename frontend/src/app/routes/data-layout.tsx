import { QueryClientProvider } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { Outlet } from 'react-router'

import { useAuth } from '@/lib/auth'
import { getAppQueryClient } from '@/lib/query-client'
import { useInjectedQueryClient } from '@/lib/query-client-slot'

/**
 * Layout of every route that reads data: provides the query client and
 * clears the cache when the user signs out (no data of one user is shown to
 * the next).
 */
export function DataLayout() {
  const client = useInjectedQueryClient() ?? getAppQueryClient()
  const { status, user } = useAuth()
  const lastUser = useRef<string | null | undefined>(undefined)

  useEffect(() => {
    if (status === 'loading') return
    const id = user?.id ?? null
    if (lastUser.current !== undefined && lastUser.current !== id) client.clear()
    lastUser.current = id
  }, [client, status, user])

  return (
    <QueryClientProvider client={client}>
      <Outlet />
    </QueryClientProvider>
  )
}
