import { useEffect, type ComponentProps } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'

import { paths, type LoginRedirectState } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useTranslation } from '@/lib/i18n/i18n'

type NavItemLinkProps = Omit<ComponentProps<typeof Link>, 'to'> & {
  /** Target path, e.g. "/properties". */
  to: string
  /** Extra paths that also mark this link as the current page. */
  alsoActiveOn?: readonly string[]
  /** Signed-out visitors are sent to /login instead, remembering `to`. */
  requiresAuth?: boolean
}

function isActivePath(pathname: string, target: string): boolean {
  if (target === '/') return pathname === '/'
  return pathname === target || pathname.startsWith(`${target}/`)
}

/**
 * Router state of a guarded link followed before the session was known: the
 * page it led to still owes the visitor the sign-in check.
 */
type PendingGuardState = { signInRequired: true }

function isPendingGuard(state: unknown): state is PendingGuardState {
  return typeof state === 'object' && state !== null && (state as PendingGuardState).signInRequired === true
}

/**
 * A navigation link that knows the current page (aria-current) and guards
 * sign-in-only pages: with no session it points at /login with
 * `{ from: to }` in router state and shows the info toast when clicked.
 * It never calls preventDefault, so menus wrapping it still close.
 */
function NavItemLink({ to, alsoActiveOn = [], requiresAuth = false, onClick, ...props }: NavItemLinkProps) {
  const { status } = useAuth()
  const { pathname } = useLocation()
  const { t } = useTranslation()

  // While the session is still loading (supabase-js is its own chunk) the
  // link goes through and marks the visit; PendingNavGuard finishes the check
  // once the session is known. A known signed-out visitor goes to /login here.
  const blocked = requiresAuth && status === 'signed-out'
  const pending = requiresAuth && status === 'loading'
  const active = [to, ...alsoActiveOn].some((target) => isActivePath(pathname, target))
  const state: LoginRedirectState | PendingGuardState | undefined = blocked
    ? { from: to }
    : pending
      ? { signInRequired: true }
      : undefined

  return (
    <Link
      to={blocked ? paths.login : to}
      state={state}
      aria-current={active ? 'page' : undefined}
      data-active={active ? '' : undefined}
      onClick={(event) => {
        onClick?.(event)
        if (blocked) toast({ title: t('nav.signInRequired'), variant: 'info' })
      }}
      {...props}
    />
  )
}

/**
 * Finishes the check of a guarded link followed while the session was still
 * loading: once the visitor is known to be signed out, they get the same
 * message and /login (replacing the page, remembering it) as if the session
 * had been known at the click. Rendered once, in the shell.
 */
function PendingNavGuard() {
  const { status } = useAuth()
  const location = useLocation()
  const navigate = useNavigate()
  const { t } = useTranslation()
  const pending = isPendingGuard(location.state)
  const from = `${location.pathname}${location.search}`
  const { hash } = location

  useEffect(() => {
    if (!pending || status === 'loading') return
    if (status === 'signed-in') {
      // Checked and let through: drop the mark, or signing out on this page
      // later would be taken for the guarded visit.
      void navigate(`${from}${hash}`, { replace: true, state: null })
      return
    }
    toast({ title: t('nav.signInRequired'), variant: 'info' })
    const state: LoginRedirectState = { from }
    void navigate(paths.login, { replace: true, state })
  }, [pending, status, from, hash, navigate, t])

  return null
}

export { NavItemLink, PendingNavGuard }
