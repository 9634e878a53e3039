import { lazy, Suspense } from 'react'

// A second step of lazy loading: /home's chunk imports only this small module,
// so the list of the dashboard's own chunks (TanStack Query, supabase-js, …)
// that Vite preloads with it is written here, not into the landing route's JS.
const HomeDashboard = lazy(() => import('./home-dashboard').then((module) => ({ default: module.HomeDashboard })))

/** The signed-in dashboard section of /home, loaded on first render. */
export function LazyHomeDashboard({ userId }: { userId: string }) {
  return (
    <Suspense fallback={null}>
      <HomeDashboard userId={userId} />
    </Suspense>
  )
}
