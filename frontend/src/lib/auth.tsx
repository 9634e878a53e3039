import type { AuthChangeEvent, Session, User } from '@supabase/supabase-js'
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'

/**
 * The part of supabase-js `auth` the shell needs. The real client satisfies
 * it; tests pass a fake.
 */
export interface AuthClient {
  getSession(): Promise<{ data: { session: Session | null } }>
  onAuthStateChange(callback: (event: AuthChangeEvent, session: Session | null) => void): {
    data: { subscription: { unsubscribe(): void } }
  }
  signOut(): Promise<{ error: unknown }>
}

export type AuthStatus = 'loading' | 'signed-in' | 'signed-out'

export type AuthState = {
  status: AuthStatus
  session: Session | null
  user: User | null
  signOut(): Promise<void>
}

const AuthContext = createContext<AuthState | null>(null)

// supabase-js is loaded in its own chunk so the shell paints without it.
async function loadAuthClient(): Promise<AuthClient> {
  const { supabase } = await import('./supabase')
  return supabase.auth
}

/**
 * Tracks the supabase-js session: getSession() for the stored one, then
 * onAuthStateChange for sign-in, sign-out and token refresh.
 */
export function AuthProvider({ client, children }: { client?: AuthClient; children: ReactNode }) {
  const clientRef = useRef<AuthClient | null>(client ?? null)
  const [session, setSession] = useState<Session | null>(null)
  const [status, setStatus] = useState<AuthStatus>('loading')

  useEffect(() => {
    let active = true
    let unsubscribe: (() => void) | undefined

    const apply = (next: Session | null) => {
      if (!active) return
      setSession(next)
      setStatus(next ? 'signed-in' : 'signed-out')
    }

    ;(client ? Promise.resolve(client) : loadAuthClient())
      .then(async (auth) => {
        if (!active) return
        clientRef.current = auth
        const { data } = auth.onAuthStateChange((_event, next) => {
          // Never call supabase from inside this callback (it holds a lock).
          // The data layout clears the query cache when the user changes.
          apply(next)
        })
        unsubscribe = () => data.subscription.unsubscribe()
        const { data: current } = await auth.getSession()
        apply(current.session)
      })
      .catch(() => apply(null))

    return () => {
      active = false
      unsubscribe?.()
    }
  }, [client])

  const signOut = useCallback(async () => {
    const auth = clientRef.current ?? (await loadAuthClient())
    const { error } = await auth.signOut()
    if (error) throw error
  }, [])

  const value = useMemo<AuthState>(
    () => ({ status, session, user: session?.user ?? null, signOut }),
    [status, session, signOut],
  )

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>
}

/** The current session and auth status. Must be used under AuthProvider. */
export function useAuth(): AuthState {
  const value = useContext(AuthContext)
  if (!value) throw new Error('useAuth must be used within AuthProvider')
  return value
}
