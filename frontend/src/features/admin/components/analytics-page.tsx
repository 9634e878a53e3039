import { lazy, Suspense, useState } from 'react'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { Button } from '@/components/ui/button'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { analyticsPeriods, useAnalytics, type AnalyticsPeriod } from '../api/analytics'

// The charts are their own chunk, fetched only when this route renders.
const AnalyticsCharts = lazy(() => import('./analytics-charts').then((m) => ({ default: m.AnalyticsCharts })))

/** /admin/analytics: admin_analytics over the last 30 or 90 days, as charts. */
export function AnalyticsPage() {
  useAdminTranslation()
  const [days, setDays] = useState<AnalyticsPeriod>(30)
  const analytics = useAnalytics(days)
  return (
    <div className="flex flex-col gap-4">
      <header className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{tA('admin.analytics.title')}</h1>
          <p className="text-muted-foreground">{tA('admin.analytics.intro')}</p>
        </div>
        <div role="group" aria-label={tA('admin.analytics.period')} className="flex gap-2">
          {analyticsPeriods.map((p) => (
            <Button key={p} size="sm" variant={p === days ? 'default' : 'outline'} aria-pressed={p === days} onClick={() => setDays(p)}>
              {tA('admin.analytics.days', { days: p })}
            </Button>
          ))}
        </div>
      </header>
      {analytics.isPending ? (
        <ListLoading label={tA('admin.analytics.loading')} />
      ) : analytics.isError ? (
        <ListError message={tA('admin.analytics.failed')} onRetry={() => void analytics.refetch()} />
      ) : (
        <Suspense fallback={<ListLoading label={tA('admin.analytics.loading')} />}>
          <AnalyticsCharts data={analytics.data} />
        </Suspense>
      )}
    </div>
  )
}
