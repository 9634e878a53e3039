import { BoxIcon, HomeIcon, PlaneIcon, ShieldCheckIcon, ForkliftIcon, UserCogIcon } from 'lucide-react'
import { Link } from 'react-router'

import { ListError } from '@/components/listings/list-states'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { formatNumber } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { adminKeys } from '../api/keys'
import { DASHBOARD_TABLES, useAdminLive, useDashboardStats, type DashboardStats } from '../api/dashboard'
import { LiveIndicator } from './live-indicator'
import { MfaEnrolCard } from './mfa-enrol-card'

const cards: { key: keyof DashboardStats; label: AdminKey; to: string; icon: typeof UserCogIcon }[] = [
  { key: 'totalUsers', label: 'admin.dashboard.totalUsers', to: '/admin/users', icon: UserCogIcon },
  { key: 'totalProperties', label: 'admin.dashboard.totalProperties', to: '/admin/properties', icon: HomeIcon },
  { key: 'totalProducts', label: 'admin.dashboard.totalProducts', to: '/admin/marketplace', icon: BoxIcon },
  { key: 'totalDroneServices', label: 'admin.dashboard.droneServices', to: '/admin/drone-services', icon: PlaneIcon },
  { key: 'totalMovingServices', label: 'admin.dashboard.movingServices', to: '/admin/moving-services', icon: ForkliftIcon },
  { key: 'pendingKYC', label: 'admin.dashboard.pendingKyc', to: '/admin/kyc', icon: ShieldCheckIcon },
]

const panels: { title: AdminKey; rows: { key: keyof DashboardStats; label: AdminKey }[] }[] = [
  {
    title: 'admin.dashboard.activeListings',
    rows: [
      { key: 'activeProperties', label: 'admin.dashboard.activeProperties' },
      { key: 'activeProducts', label: 'admin.dashboard.activeProducts' },
    ],
  },
  {
    title: 'admin.dashboard.pendingReviews',
    rows: [
      { key: 'pendingProperties', label: 'admin.dashboard.pendingProperties' },
      { key: 'pendingProducts', label: 'admin.dashboard.pendingProducts' },
      { key: 'pendingKYC', label: 'admin.dashboard.pendingKyc' },
    ],
  },
]

function Skeleton({ className }: { className?: string }) {
  return <span data-testid="skeleton" aria-hidden="true" className={`inline-block animate-pulse rounded bg-muted ${className ?? ''}`} />
}

/** The admin dashboard (spec §2): the figures of one get_dashboard_stats call, kept live over Realtime. */
export function AdminDashboard() {
  useAdminTranslation()
  const stats = useDashboardStats()
  const live = useAdminLive('dashboard', DASHBOARD_TABLES, [adminKeys.stats()])
  const value = (key: keyof DashboardStats) =>
    stats.data ? <span data-stat={key}>{formatNumber(stats.data[key])}</span> : <Skeleton className="h-7 w-16" />

  return (
    <div className="flex flex-col gap-6">
      <header className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{tA('admin.dashboard.title')}</h1>
          <p className="text-muted-foreground">{tA('admin.dashboard.subtitle')}</p>
        </div>
        <LiveIndicator status={live} />
      </header>
      <MfaEnrolCard />
      {stats.isError && !stats.data ? (
        <ListError message={tA('admin.dashboard.failed')} onRetry={() => void stats.refetch()} />
      ) : (
        <>
          <div aria-busy={stats.isPending} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {cards.map(({ key, label, to, icon: Icon }) => (
              <Link key={key} to={to} className="rounded-xl focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
                <Card className="h-full transition-colors hover:bg-accent">
                  <CardContent className="flex items-center justify-between gap-3">
                    <div>
                      <p className="text-sm text-muted-foreground">{tA(label)}</p>
                      <p className="text-2xl font-bold">{value(key)}</p>
                    </div>
                    <Icon className="size-8 text-primary" aria-hidden="true" />
                  </CardContent>
                </Card>
              </Link>
            ))}
          </div>
          <div className="grid gap-4 md:grid-cols-2">
            {panels.map((panel) => (
              <Card key={panel.title}>
                <CardHeader>
                  <h2 className="leading-none font-semibold">{tA(panel.title)}</h2>
                </CardHeader>
                <CardContent>
                  <dl className="flex flex-col gap-2">
                    {panel.rows.map((row) => (
                      <div key={row.key} className="flex items-center justify-between">
                        <dt className="text-muted-foreground">{tA(row.label)}</dt>
                        <dd className="font-semibold">{value(row.key)}</dd>
                      </div>
                    ))}
                  </dl>
                </CardContent>
              </Card>
            ))}
          </div>
        </>
      )}
    </div>
  )
}
