import { screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { renderApp } from '@/testing/test-utils'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

/** Stubs fetch with the auth server's /settings answer (or a failure). */
function stubSettings(answer: { google?: boolean } | 'unreachable') {
  const fetchMock = vi.fn(async (url: string | URL | Request) => {
    if (!String(url).endsWith('/auth/v1/settings')) throw new Error(`unexpected fetch ${String(url)}`)
    if (answer === 'unreachable') return new Response('upstream down', { status: 502 })
    return Response.json({ external: { email: true, phone: false, ...answer }, disable_signup: false })
  })
  vi.stubGlobal('fetch', fetchMock)
  return fetchMock
}

describe('the Google button', () => {
  beforeEach(() => {
    vi.clearAllMocks()
  })

  it('is hidden, with its separator, when the server has no Google sign-in', async () => {
    const fetchMock = stubSettings({ google: false })
    await renderApp('/login')
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument()
    await waitFor(() => expect(fetchMock).toHaveBeenCalledOnce())
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit]
    expect(url).toMatch(/\/auth\/v1\/settings$/)
    expect(new Headers(init.headers).get('apikey')).toBeTruthy()
    // Give the settings time to land; the button must still not appear.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(screen.queryByRole('button', { name: 'Continue with Google' })).not.toBeInTheDocument()
    expect(screen.queryByText('or')).not.toBeInTheDocument()
  })

  it('is hidden on /register too', async () => {
    const fetchMock = stubSettings({ google: false })
    await renderApp('/register')
    expect(await screen.findByRole('button', { name: 'Create Account' })).toBeInTheDocument()
    await waitFor(() => expect(fetchMock).toHaveBeenCalled())
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(screen.queryByRole('button', { name: 'Continue with Google' })).not.toBeInTheDocument()
  })

  it('works as before when Google sign-in is configured', async () => {
    stubSettings({ google: true })
    fake.client.auth.signInWithOAuth.mockResolvedValue({ data: { provider: 'google', url: 'https://accounts.google.com/' }, error: null })
    const { user } = await renderApp('/login')
    const google = await screen.findByRole('button', { name: 'Continue with Google' })
    expect(screen.getByText('or')).toBeInTheDocument()
    await user.click(google)
    expect(fake.client.auth.signInWithOAuth).toHaveBeenCalledWith({ provider: 'google', options: { redirectTo: window.location.origin } })
  })

  it('stays available when the settings cannot be read', async () => {
    stubSettings('unreachable')
    await renderApp('/login')
    expect(await screen.findByRole('button', { name: 'Continue with Google' })).toBeInTheDocument()
  })
})
