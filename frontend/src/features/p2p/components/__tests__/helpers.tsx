import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { createMemoryRouter, RouterProvider } from 'react-router'

import { fake } from '@/testing/supabase-mock'
import { fakeSession, renderWithProviders, settleAuth } from '@/testing/test-utils'

export const session = fakeSession({ fullName: 'Wanjiku Test' })
export const me = session.user.id
export const other = '00000000-0000-4000-8000-0000000000aa'

/** Renders `ui` at `path` in a memory router, signed in, and waits for the session. */
export async function renderSignedIn(ui: ReactNode, path = '/') {
  const router = createMemoryRouter(
    [
      { path: '*', element: ui },
      { path: '/p2p/trades/:id', element: <p>trade page</p> },
    ],
    { initialEntries: [path] },
  )
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const result = renderWithProviders(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
    { session },
  )
  await settleAuth(result.authClient)
  return { ...result, router, queryClient }
}

/** Programs fake.client.rpc: each function name answers with data, or rejects with a PostgREST-like error. */
export function rpcAnswers(answers: Record<string, unknown | { error: { message: string; details?: string; hint?: string } }>) {
  fake.client.rpc.mockImplementation((fn: string) => {
    const answer = answers[fn]
    const result = () =>
      answer && typeof answer === 'object' && 'error' in answer
        ? Promise.reject(Object.assign(new Error((answer as { error: { message: string } }).error.message), (answer as { error: object }).error))
        : Promise.resolve({ data: answer ?? null, error: null })
    const builder = { abortSignal: () => builder, throwOnError: result }
    return builder
  })
}
