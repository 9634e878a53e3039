/**
 * The page's URL as it was when the app started, captured at import time.
 *
 * The auth server hands its outcome over in the URL: an e-mail confirmation
 * or Google sign-in returns to the site root with `#access_token=…&type=…`,
 * and a failure with `#error=…&error_description=…` (some errors use the
 * query). supabase-js, created by AuthProvider, reads those tokens and then
 * clears the fragment, usually before the lazily loaded route renders. So
 * main.tsx imports this module first, before anything creates the client,
 * and the routes read the auth outcome from here.
 */
export type InitialUrl = { pathname: string; search: string; hash: string }

const blank: InitialUrl = { pathname: '/', search: '', hash: '' }

function capture(): InitialUrl {
  if (typeof window === 'undefined') return blank
  const { pathname, search, hash } = window.location
  return { pathname, search, hash }
}

let initial: InitialUrl = capture()
let handled = false

/** The URL the app started with (its auth part empty once handled). */
export function getInitialUrl(): InitialUrl {
  return handled ? { ...initial, search: '', hash: '' } : initial
}

/**
 * Marks the start-up URL's auth outcome as shown, so returning to the page
 * later in the same visit does not repeat its toast.
 */
export function markInitialUrlHandled(): void {
  handled = true
}

/** Captures the URL again (or takes `url`); for tests. */
export function resetInitialUrl(url?: Partial<InitialUrl>): void {
  initial = url ? { ...blank, ...url } : capture()
  handled = false
}

export type AuthLanding =
  | { kind: 'none' }
  | { kind: 'session' }
  | { kind: 'confirmed' }
  | { kind: 'recovery' }
  | { kind: 'error'; message: string }

/**
 * Reads the auth outcome from the URL the auth server redirects to: an error
 * (in the fragment or the query), an e-mail confirmation (type=signup), a
 * password-recovery link (type=recovery), or another sign-in that hands over
 * a session (Google).
 */
export function readAuthLanding(hash: string, search = ''): AuthLanding {
  const params = new URLSearchParams(hash.replace(/^#/, ''))
  const query = new URLSearchParams(search.replace(/^\?/, ''))
  for (const source of [params, query]) {
    if (source.has('error') || source.has('error_description')) {
      return { kind: 'error', message: source.get('error_description') ?? '' }
    }
  }
  if (!params.has('access_token')) return { kind: 'none' }
  const type = params.get('type')
  if (type === 'signup') return { kind: 'confirmed' }
  if (type === 'recovery') return { kind: 'recovery' }
  return { kind: 'session' }
}

/** The auth outcome of the URL the app started with. */
export function initialAuthLanding(): AuthLanding {
  const url = getInitialUrl()
  return readAuthLanding(url.hash, url.search)
}
