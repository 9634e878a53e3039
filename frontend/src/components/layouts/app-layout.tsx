import { Suspense } from 'react'
import { Outlet, ScrollRestoration } from 'react-router'

import { Spinner } from '@/components/ui/spinner'
import { useTranslation } from '@/lib/i18n/i18n'

import { BottomBar } from './bottom-bar'
import { Footer } from './footer'
import { InstallPrompt } from './install-prompt'
import { PendingNavGuard } from './nav-item-link'
import { Navbar } from './navbar'
import type { ShellInbox } from './signed-in-slot'

/**
 * The shell around every page: top bar, page, footer, phone bottom bar.
 * `inbox` holds the signed-in users' badges and bell (lazily loaded).
 */
function AppLayout({ inbox }: { inbox?: ShellInbox }) {
  const { t } = useTranslation()

  return (
    <div className="flex min-h-dvh flex-col pb-16 md:pb-0">
      <Navbar inbox={inbox?.navbar} />
      {/* At least a screen tall, so the footer starts below the fold: when a
          lazily loaded page replaces the spinner, the footer then moves
          off screen only, which is no layout shift for the visitor. */}
      <main id="main" tabIndex={-1} className="min-h-dvh flex-1 outline-none">
        <Suspense fallback={<Spinner label={t('app.loading')} className="py-24" />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      <BottomBar messagesBadge={inbox?.messagesBadge} />
      <InstallPrompt />
      <PendingNavGuard />
      <ScrollRestoration />
    </div>
  )
}

export { AppLayout }
