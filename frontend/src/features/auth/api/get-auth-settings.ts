import { queryOptions, useQuery } from '@tanstack/react-query'

import { env } from '@/config/env'

import { authKeys } from './keys'

/** The part of GoTrue's GET /auth/v1/settings the app reads: which external providers are enabled. */
export type AuthSettings = { external: Partial<Record<string, boolean>> }

/**
 * Reads the auth server's public settings (GoTrue's /settings, which
 * supabase-js does not wrap): a small JSON telling which sign-in methods the
 * server has configured, e.g. `external.google`.
 */
export async function getAuthSettings(signal?: AbortSignal): Promise<AuthSettings> {
  const response = await fetch(`${env.supabaseUrl}/auth/v1/settings`, {
    headers: { apikey: env.supabaseAnonKey, accept: 'application/json' },
    signal,
  })
  if (!response.ok) throw new Error(`Auth settings: HTTP ${response.status}`)
  const body = (await response.json()) as Partial<AuthSettings> | null
  return { external: body?.external ?? {} }
}

/** The settings change only with the server's configuration: read once per visit. */
export const getAuthSettingsQueryOptions = () =>
  queryOptions({
    queryKey: authKeys.settings(),
    queryFn: ({ signal }) => getAuthSettings(signal),
    staleTime: Infinity,
    gcTime: Infinity,
    retry: 1,
  })

/**
 * Whether Google sign-in is configured on the server: undefined while the
 * settings load, true or false after; true when they cannot be read (the
 * button then behaves as it always did rather than vanish on a hiccup).
 */
export function useGoogleSignInEnabled(): boolean | undefined {
  const query = useQuery(getAuthSettingsQueryOptions())
  if (query.isPending) return undefined
  if (query.isError) return true
  return query.data.external.google === true
}
