import { lazy } from 'react'
import { createBrowserRouter, type RouteObject } from 'react-router'
import { RouterProvider } from 'react-router/dom'

import { AppLayout } from '@/components/layouts/app-layout'

import { RouteError } from './routes/route-error'

// Pages are split into their own chunks so the shell loads first.
const HomeRoute = lazy(() => import('./routes/home').then((m) => ({ default: m.HomeRoute })))
const ComingSoonRoute = lazy(() =>
  import('./routes/coming-soon').then((m) => ({ default: m.ComingSoonRoute })),
)

/**
 * The route table. The outer errorElement catches a failing shell; the inner
 * one keeps the shell on screen when only a page fails.
 */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      {
        errorElement: <RouteError />,
        children: [
          { index: true, element: <HomeRoute /> },
          { path: 'home', element: <HomeRoute /> },
          { path: '*', element: <ComingSoonRoute /> },
        ],
      },
    ],
  },
]

let browserRouter: ReturnType<typeof createBrowserRouter> | undefined

/** The app's router, created once on first render. */
export function AppRouter() {
  browserRouter ??= createBrowserRouter(routes)
  return <RouterProvider router={browserRouter} />
}
