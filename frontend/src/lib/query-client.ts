import { QueryClient, type DefaultOptions } from '@tanstack/react-query'

/** Defaults shared by every query; screens override per query when needed. */
export const queryConfig = {
  queries: {
    staleTime: 60_000,
    // Spec §9: cache garbage collection after 5 minutes.
    gcTime: 5 * 60_000,
    // Spec §7: failed calls are retried 3 times, waiting min(1000 * 2^n, 30000) ms.
    retry: 3,
    retryDelay: (attempt: number) => Math.min(1000 * 2 ** attempt, 30_000),
    refetchOnWindowFocus: false,
  },
} satisfies DefaultOptions

/** Makes a query client; the app makes one, each test makes its own. */
export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: queryConfig })
}

let appQueryClient: QueryClient | undefined

/** The app's one query client, made on first use. */
export function getAppQueryClient(): QueryClient {
  appQueryClient ??= createQueryClient()
  return appQueryClient
}
