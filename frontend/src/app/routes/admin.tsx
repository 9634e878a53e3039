import { QueryClientProvider } from '@tanstack/react-query'
import { Navigate, Outlet, useParams, useRoutes, type RouteObject } from 'react-router'

import { AdminLoginSteps } from '@/features/admin/components/admin-login-steps'
import { AdminDashboard } from '@/features/admin/components/admin-dashboard'
import { AdminGuard, AdminLeavingProvider } from '@/features/admin/components/admin-guard'
import { AdminInbox } from '@/features/admin/components/admin-inbox'
import { AdminMobileNav, AdminSidebar } from '@/features/admin/components/admin-sidebar'
import { AnalyticsPage } from '@/features/admin/components/analytics-page'
import { DisputesList } from '@/features/admin/components/disputes-list'
import { KycReview } from '@/features/admin/components/kyc-review'
import { ModerationList } from '@/features/admin/components/moderation-list'
import { UserDetail } from '@/features/admin/components/user-detail'
import { UsersTable } from '@/features/admin/components/users-table'
import { useDocumentMeta } from '@/lib/document-meta'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'
import { getAppQueryClient } from '@/lib/query-client'
import { useInjectedQueryClient } from '@/lib/query-client-slot'

/**
 * The admin area's own shell (not the public AppLayout): the query client
 * and the page frame. Everything admin lives in this lazily loaded chunk,
 * so none of it reaches the landing bundle.
 */
export function AdminShellRoute() {
  const client = useInjectedQueryClient() ?? getAppQueryClient()
  useAdminTranslation()
  useDocumentMeta(tA('admin.panel'), tA('admin.dashboard.subtitle'))
  return (
    <QueryClientProvider client={client}>
      <AdminLeavingProvider>
        <Outlet />
      </AdminLeavingProvider>
    </QueryClientProvider>
  )
}

/** /admin/login: the second factor (when enrolled) and the access code, for the signed-in admin account only. */
export function AdminLoginRoute() {
  return (
    <AdminGuard requireCode={false}>
      <main className="flex min-h-svh items-center justify-center bg-muted/40 p-4">
        <AdminLoginSteps />
      </main>
    </AdminGuard>
  )
}

/** The guarded admin layout: sidebar (md and up) or a scrolling section bar, and the page. */
export function AdminLayoutRoute() {
  return (
    <AdminGuard>
      <div className="flex min-h-svh bg-background">
        <AdminSidebar />
        <div className="flex min-w-0 flex-1 flex-col">
          <AdminMobileNav />
          <main className="flex-1 p-4 md:p-8">
            <Outlet />
          </main>
        </div>
      </div>
    </AdminGuard>
  )
}

export function AdminDashboardRoute() {
  return <AdminDashboard />
}
export function AdminUsersRoute() {
  return <UsersTable />
}
export function AdminUserRoute() {
  const { id = '' } = useParams()
  return <UserDetail key={id} id={id} />
}
export function AdminKycRoute() {
  return <KycReview />
}
export function AdminPropertiesRoute() {
  return <ModerationList key="properties" section="properties" />
}
export function AdminLandsRoute() {
  return <ModerationList key="lands" section="lands" />
}
export function AdminMarketplaceRoute() {
  return <ModerationList key="marketplace" section="marketplace" />
}
export function AdminDroneServicesRoute() {
  return <ModerationList key="drone" section="drone-services" />
}
export function AdminMovingServicesRoute() {
  return <ModerationList key="moving" section="moving-services" />
}
export function AdminDisputesRoute() {
  return <DisputesList />
}
export function AdminAnalyticsRoute() {
  return <AnalyticsPage />
}
export function AdminReportsRoute() {
  return <AdminInbox />
}

/**
 * Everything under /admin, as descendant routes of the app router's single
 * '/admin/*' entry: the landing bundle carries one lazy import, no more.
 * (useRoutes, not <Routes>, so the entry chunk keeps no extra router code.)
 */
export function AdminRoute() {
  return useRoutes(adminRoutes)
}

const adminRoutes: RouteObject[] = [
  {
    element: <AdminShellRoute />,
    children: [
      { path: 'login', element: <AdminLoginRoute /> },
      {
        element: <AdminLayoutRoute />,
        children: [
          // /admin is the dashboard (spec §2); sending it to /admin/dashboard
          // lets the sidebar mark the screen it shows. Unknown sections too.
          { index: true, element: <Navigate to="/admin/dashboard" replace /> },
          { path: 'dashboard', element: <AdminDashboardRoute /> },
          { path: 'users', element: <AdminUsersRoute /> },
          { path: 'users/:id', element: <AdminUserRoute /> },
          { path: 'kyc', element: <AdminKycRoute /> },
          { path: 'properties', element: <AdminPropertiesRoute /> },
          { path: 'lands', element: <AdminLandsRoute /> },
          { path: 'marketplace', element: <AdminMarketplaceRoute /> },
          { path: 'drone-services', element: <AdminDroneServicesRoute /> },
          { path: 'moving-services', element: <AdminMovingServicesRoute /> },
          { path: 'disputes', element: <AdminDisputesRoute /> },
          { path: 'analytics', element: <AdminAnalyticsRoute /> },
          { path: 'reports', element: <AdminReportsRoute /> },
          { path: '*', element: <Navigate to="/admin/dashboard" replace /> },
        ],
      },
    ],
  },
]
