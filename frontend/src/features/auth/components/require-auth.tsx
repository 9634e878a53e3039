import { useEffect, type ReactNode } from 'react'
import { Navigate, useLocation } from 'react-router'

import { Spinner } from '@/components/ui/spinner'
import { paths, type LoginRedirectState } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useTranslation } from '@/lib/i18n/i18n'

function ToLogin() {
  const { t } = useTranslation()
  const location = useLocation()
  useEffect(() => {
    toast({ title: t('auth.guardMessage'), variant: 'info' })
  }, [t])
  const state: LoginRedirectState = { from: `${location.pathname}${location.search}` }
  return <Navigate to={paths.login} replace state={state} />
}

/**
 * The user guard (spec §5): signed-out visitors see 'Please log in to
 * continue with this action' and go to /login, replacing history and
 * remembering where they were going.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { status } = useAuth()
  const { t } = useTranslation()
  if (status === 'loading') return <Spinner label={t('app.loading')} className="py-24" />
  if (status === 'signed-out') return <ToLogin />
  return children
}
