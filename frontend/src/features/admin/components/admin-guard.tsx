import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'
import { Navigate, useLocation } from 'react-router'

import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { paths, type LoginRedirectState } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA } from '@/lib/i18n/admin'

import { readAdminFlag, useAdminGate } from '../api/admin-access'

/** Shows a guard message once and redirects (spec §5 admin guard). */
function Refuse({ message, to, variant = 'destructive', state }: { message?: AdminKey; to: string; variant?: 'info' | 'destructive'; state?: LoginRedirectState }) {
  useEffect(() => {
    if (message) toast({ title: tA(message), variant })
  }, [message, variant])
  return <Navigate to={to} replace state={state} />
}

/**
 * Whether the admin is logging out. Logout leaves for / and signs out; the
 * sign-out can land before the page for / has loaded, while the admin pages
 * are still on screen, and the guard must not answer it with the sign-in
 * redirect meant for visitors.
 */
const AdminLeaving = createContext<{ leaving: boolean; leave(): void }>({ leaving: false, leave: () => {} })

/** Holds the logging-out state for the admin area's guard and its Logout buttons. */
export function AdminLeavingProvider({ children }: { children: ReactNode }) {
  const [leaving, setLeaving] = useState(false)
  const value = useMemo(() => ({ leaving, leave: () => setLeaving(true) }), [leaving])
  return <AdminLeaving.Provider value={value}>{children}</AdminLeaving.Provider>
}

/** The logging-out state and the call that starts it. */
export function useAdminLeaving() {
  return useContext(AdminLeaving)
}

function Checking() {
  return <Spinner label={tA('admin.checking')} className="py-24" />
}

/**
 * The admin guard (spec §4 access sequence, §5): signed in, the single admin
 * account's e-mail, the admin role, and the access code entered in this
 * session (checked by the server, plus the local 'adminVerified' flag).
 * `requireCode` is false on /admin/login itself, which instead skips to the
 * dashboard when the code was already entered.
 */
export function AdminGuard({ children, requireCode = true }: { children: ReactNode; requireCode?: boolean }) {
  const { status, user } = useAuth()
  const location = useLocation()
  const gate = useAdminGate(status === 'signed-in' ? user : null)
  const { leaving } = useAdminLeaving()

  if (leaving || status === 'loading') return <Checking />
  if (status === 'signed-out' || !user) {
    return <Refuse message="admin.guard.signIn" variant="info" to={paths.login} state={{ from: `${location.pathname}${location.search}` }} />
  }
  if (gate.isPending) return <Checking />
  if (gate.isError) {
    return (
      <div role="alert" className="flex flex-col items-center gap-3 py-24">
        <p>{tA('admin.guard.failed')}</p>
        <Button variant="outline" onClick={() => void gate.refetch()}>
          {tA('admin.retry')}
        </Button>
      </div>
    )
  }
  const { isAdminEmail, hasAdminRole, sessionVerified } = gate.data
  if (!isAdminEmail) return <Refuse message="admin.guard.notAdmin" to={paths.root} />
  if (!hasAdminRole) return <Refuse message="admin.guard.roleMissing" to={paths.root} />
  const verified = sessionVerified && readAdminFlag()
  if (requireCode && !verified) return <Refuse to={paths.adminLogin} />
  if (!requireCode && verified) return <Refuse to={paths.adminDashboard} />
  return children
}
