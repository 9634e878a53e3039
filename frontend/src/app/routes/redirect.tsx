import { HomeIcon, MapPinIcon } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Link, useNavigate } from 'react-router'

import { Spinner } from '@/components/ui/spinner'
import { landingLocations } from '@/config/listings'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useAuth, type AuthStatus } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { initialAuthLanding, markInitialUrlHandled, readAuthLanding, type AuthLanding } from '@/lib/initial-url'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { useCountUp } from '@/lib/use-count-up'

/** Spec §9: the root screen moves on to /home after one second. */
export const REDIRECT_DELAY_MS = 1000

function Stat({ target, label }: { target: number; label: MessageKey }) {
  const { t } = useTranslation()
  const value = useCountUp(target)
  return (
    <div className="rounded-lg border bg-card p-4 text-center">
      {/* Spec §1: 'Properties Listed 5000, Happy Clients 2500, Cities Covered 12', as plain numbers. */}
      <p className="text-2xl font-bold text-primary tabular-nums">{String(value)}</p>
      <p className="text-sm text-muted-foreground">{t(label)}</p>
    </div>
  )
}

export { readAuthLanding, type AuthLanding }

/**
 * The toast for an auth landing once the session is known (null while it is
 * loading, or when there is nothing to say): the auth server's error, 'Email
 * confirmed!' (or why not), or 'Signed in successfully!' after Google.
 */
export function landingToast(landing: AuthLanding, status: AuthStatus): { title: MessageKey | string; translate: boolean; variant: 'success' | 'destructive' } | null {
  switch (landing.kind) {
    case 'error':
      return landing.message
        ? { title: landing.message, translate: false, variant: 'destructive' }
        : { title: 'auth.googleFailed', translate: true, variant: 'destructive' }
    case 'confirmed':
      if (status === 'loading') return null
      return status === 'signed-in'
        ? { title: 'redirect.emailConfirmed', translate: true, variant: 'success' }
        : { title: 'redirect.confirmFailed', translate: true, variant: 'destructive' }
    case 'session':
      if (status !== 'signed-in') return null
      return { title: 'auth.signInSuccess', translate: true, variant: 'success' }
    default:
      return null
  }
}

/**
 * Whether the root screen may move on to /home: after the delay, and, when
 * the URL hands over a session, only once supabase-js has read it (leaving
 * earlier would drop the fragment and the session with it).
 */
export function mayLeaveRedirect(delayPassed: boolean, landing: AuthLanding, status: AuthStatus): boolean {
  if (!delayPassed) return false
  return landing.kind === 'none' || landing.kind === 'error' || status !== 'loading'
}

/** `/`: logo, spinner, count-up stats and location tiles, then /home. */
export function RedirectRoute() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { status } = useAuth()
  useDocumentMeta(`${t('app.name')} - ${t('meta.rootTitle')}`, t('meta.rootDescription'))

  // E-mail confirmation and Google sign-in land here with the outcome in the
  // URL fragment. supabase-js reads the tokens and clears the fragment,
  // often before this lazily loaded route renders, so the outcome comes from
  // the URL recorded at start-up (lib/initial-url). Tell the user what
  // happened once the session is known.
  const [landing] = useState(initialAuthLanding)
  const message = landingToast(landing, status)
  useEffect(() => {
    if (!message) return
    toast({ title: message.translate ? t(message.title as MessageKey) : message.title, variant: message.variant })
    markInitialUrlHandled()
    // Once per landing (keyed on the message): a language switch must not repeat it.
  }, [message?.title])

  const [delayPassed, setDelayPassed] = useState(false)
  useEffect(() => {
    const timer = setTimeout(() => setDelayPassed(true), REDIRECT_DELAY_MS)
    return () => clearTimeout(timer)
  }, [])
  const leave = mayLeaveRedirect(delayPassed, landing, status)
  useEffect(() => {
    // A recovery link that fell back to the site root still ends on the reset form.
    if (leave) navigate(landing.kind === 'recovery' ? paths.resetPassword : paths.home, { replace: true })
  }, [leave, landing, navigate])

  return (
    <section className="mx-auto flex max-w-3xl flex-col items-center gap-6 px-4 py-16 text-center">
      <div className="flex size-16 items-center justify-center rounded-2xl bg-primary text-primary-foreground">
        <HomeIcon className="size-8" aria-hidden="true" />
      </div>
      <Spinner label={`${t('redirect.to')} ${t('app.name')}...`} />
      <h1 className="text-2xl font-bold">
        {t('redirect.to')} {t('app.name')}
      </h1>
      <div className="grid w-full grid-cols-3 gap-3">
        <Stat target={5000} label="redirect.statProperties" />
        <Stat target={2500} label="redirect.statClients" />
        <Stat target={12} label="redirect.statCities" />
      </div>
      <div className="w-full">
        <h2 className="mb-3 text-sm font-medium text-muted-foreground">{t('redirect.popularLocations')}</h2>
        <ul className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          {landingLocations.map((location) => (
            <li key={location}>
              <Link
                to={`${paths.properties}?location=${encodeURIComponent(location)}`}
                className="flex items-center justify-center gap-1 rounded-md border px-3 py-2 text-sm hover:bg-accent"
              >
                <MapPinIcon className="size-4" aria-hidden="true" />
                {location}
              </Link>
            </li>
          ))}
        </ul>
      </div>
    </section>
  )
}
