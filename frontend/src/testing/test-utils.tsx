import type { AuthChangeEvent, Session, User } from '@supabase/supabase-js'
import { QueryClient } from '@tanstack/react-query'
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ReactNode } from 'react'
// RouterProvider from 'react-router', not 'react-router/dom': under Vitest the
// latter resolves to react-router's CommonJS build, a second copy whose
// contexts the app's hooks cannot see.
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router'
import { expect, vi } from 'vitest'

import { AppProvider } from '@/app/provider'
import { routes as appRoutes } from '@/app/router'
import type { AuthClient } from '@/lib/auth'

/** A signed-in session for `email`, with an optional full name. */
export function fakeSession({
  email = 'wanjiku@example.com',
  fullName,
}: { email?: string; fullName?: string } = {}): Session {
  const user = {
    id: '00000000-0000-4000-8000-000000000001',
    aud: 'authenticated',
    role: 'authenticated',
    email,
    app_metadata: { provider: 'email' },
    user_metadata: fullName ? { full_name: fullName } : {},
    created_at: '2024-08-01T00:00:00Z',
  } satisfies User
  return {
    access_token: 'test-access-token',
    refresh_token: 'test-refresh-token',
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    user,
  }
}

/**
 * An in-memory stand-in for supabase-js `auth`: it reports `session` and
 * emits SIGNED_OUT on signOut(), with no network.
 */
export function createFakeAuthClient(initial: Session | null = null) {
  let session = initial
  const listeners = new Set<(event: AuthChangeEvent, session: Session | null) => void>()
  const client = {
    getSession: vi.fn(async () => ({ data: { session } })),
    onAuthStateChange: vi.fn((callback: (event: AuthChangeEvent, s: Session | null) => void) => {
      listeners.add(callback)
      queueMicrotask(() => callback('INITIAL_SESSION', session))
      return { data: { subscription: { unsubscribe: () => listeners.delete(callback) } } }
    }),
    signOut: vi.fn(async () => {
      session = null
      for (const listener of listeners) listener('SIGNED_OUT', null)
      return { error: null }
    }),
  } satisfies AuthClient
  return client
}

/**
 * A fake auth client whose stored session is read only when `release` is
 * called: the app's state while supabase-js is still loading.
 */
export function createSlowAuthClient(session: Session | null = null) {
  const client = createFakeAuthClient(session)
  let release!: () => void
  const ready = new Promise<void>((resolve) => (release = resolve))
  const subscribe = client.onAuthStateChange.getMockImplementation()!
  const read = client.getSession.getMockImplementation()!
  client.onAuthStateChange.mockImplementation((callback) =>
    subscribe((event, session) => void ready.then(() => callback(event, session))),
  )
  client.getSession.mockImplementation(async () => {
    await ready
    return read()
  })
  return { client, release }
}

function createTestQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false } } })
}

/** Waits until the provider has read the fake session. */
export async function settleAuth(client: ReturnType<typeof createFakeAuthClient>): Promise<void> {
  await waitFor(() => expect(client.getSession).toHaveBeenCalled())
  await act(async () => {
    await client.getSession.mock.results[0]?.value
  })
}

/** Renders `ui` under the app's providers with a fake auth client. */
export function renderWithProviders(
  ui: ReactNode,
  {
    session = null,
    authClient = createFakeAuthClient(session),
  }: { session?: Session | null; authClient?: ReturnType<typeof createFakeAuthClient> } = {},
) {
  const user = userEvent.setup()
  const result = render(
    <AppProvider authClient={authClient} queryClient={createTestQueryClient()}>
      {ui}
    </AppProvider>,
  )
  return { ...result, user, authClient }
}

/**
 * Renders the real route table in a memory router at `path` and waits until
 * the session is known and the page chunk has loaded.
 */
export async function renderApp(
  path = '/home',
  { session = null, routes = appRoutes }: { session?: Session | null; routes?: RouteObject[] } = {},
) {
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  const result = renderWithProviders(<RouterProvider router={router} />, { session })
  await settleAuth(result.authClient)
  await waitFor(() => expect(screen.queryByText('Loading...')).not.toBeInTheDocument())
  return { ...result, router }
}

/**
 * Renders the real route table at `path` with `authClient` and waits for
 * nothing: for tests that control when the session becomes known.
 */
export function renderAppWithAuth(path: string, authClient: ReturnType<typeof createFakeAuthClient>) {
  const router = createMemoryRouter(appRoutes, { initialEntries: [path] })
  return { ...renderWithProviders(<RouterProvider router={router} />, { authClient }), router }
}

/** The toast area (Radix viewport) and the toasts in it. */
export function getToastRegion(): HTMLElement {
  return screen.getByRole('region', { name: /notifications/i })
}

export function visibleToasts(): HTMLElement[] {
  return within(getToastRegion()).queryAllByRole('listitem')
}

/**
 * Fills labelled fields in order, as a user would: a select picks the option
 * with that value, any other field is typed into.
 */
export async function fillFields(user: ReturnType<typeof userEvent.setup>, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    const field = screen.getByLabelText(label)
    if (field instanceof HTMLSelectElement) await user.selectOptions(field, value)
    else await user.type(field, value)
  }
}
