import { Suspense } from 'react'
import { Outlet, ScrollRestoration } from 'react-router'

import { Spinner } from '@/components/ui/spinner'
import { useTranslation } from '@/lib/i18n/i18n'

import { BottomBar } from './bottom-bar'
import { Footer } from './footer'
import { Navbar } from './navbar'

/** The shell around every page: top bar, page, footer, phone bottom bar. */
function AppLayout() {
  const { t } = useTranslation()

  return (
    <div className="flex min-h-dvh flex-col pb-16 md:pb-0">
      <Navbar />
      <main id="main" tabIndex={-1} className="flex-1 outline-none">
        <Suspense fallback={<Spinner label={t('app.loading')} className="py-24" />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      <BottomBar />
      <ScrollRestoration />
    </div>
  )
}

export { AppLayout }
