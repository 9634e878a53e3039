import { QueryClient, type DefaultOptions } from '@tanstack/react-query'

/** Defaults shared by every query; screens override per query when needed. */
export const queryConfig = {
  queries: {
    staleTime: 60_000,
    retry: 1,
    refetchOnWindowFocus: false,
  },
} satisfies DefaultOptions

/** Makes a query client; the app makes one, each test makes its own. */
export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: queryConfig })
}
