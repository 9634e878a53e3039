import type { ComponentProps } from 'react'
import { Link, useLocation } from 'react-router'

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
 * A navigation link that knows the current page (aria-current) and guards
 * sign-in-only pages: with no session it points at /login with
 * `{ from: to }` in router state and shows the info toast when clicked.
 * It never calls preventDefault, so menus wrapping it still close.
 */
function NavItemLink({ to, alsoActiveOn = [], requiresAuth = false, onClick, ...props }: NavItemLinkProps) {
  const { status } = useAuth()
  const { pathname } = useLocation()
  const { t } = useTranslation()

  // While the session is still loading the link goes through; the page's own
  // guard decides. Only a known signed-out visitor is redirected here.
  const blocked = requiresAuth && status === 'signed-out'
  const active = [to, ...alsoActiveOn].some((target) => isActivePath(pathname, target))
  const state: LoginRedirectState | undefined = blocked ? { from: to } : undefined

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

export { NavItemLink }
