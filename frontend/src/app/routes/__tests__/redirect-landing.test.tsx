import { screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'

import { initialAuthLanding, resetInitialUrl } from '@/lib/initial-url'
import { fakeSession, renderApp } from '@/testing/test-utils'

import mainSource from '../../../main.tsx?raw'
import { landingToast, readAuthLanding } from '../redirect'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

afterEach(() => {
  window.history.replaceState(null, '', '/')
  resetInitialUrl({ pathname: '/' })
})

describe('the start-up URL', () => {
  it('is imported by main.tsx before anything else', () => {
    const firstImport = /^import\s+(?:[^'"]*from\s+)?['"]([^'"]+)['"]/m.exec(mainSource)?.[1]
    expect(firstImport).toBe('@/lib/initial-url')
  })

  it('reads errors from the query as well as the fragment', () => {
    expect(readAuthLanding('', '?error=server_error&error_description=Google+said+no')).toEqual({ kind: 'error', message: 'Google said no' })
    expect(landingToast({ kind: 'session' }, 'loading')).toBeNull()
    expect(landingToast({ kind: 'session' }, 'signed-in')?.title).toBe('auth.signInSuccess')
  })
})

describe('/ after an auth redirect (fragment already cleared by supabase-js)', () => {
  it("shows 'Email confirmed!' after the confirmation link", async () => {
    resetInitialUrl({ pathname: '/', hash: '#access_token=a&expires_in=3600&refresh_token=r&token_type=bearer&type=signup' })
    expect(window.location.hash).toBe('')
    await renderApp('/', { session: fakeSession() })
    expect(await screen.findByText('Email confirmed! You are now signed in.')).toBeInTheDocument()
  })

  it("shows 'Signed in successfully!' after Google sign-in", async () => {
    resetInitialUrl({ pathname: '/', hash: '#access_token=a&provider_token=g&refresh_token=r&token_type=bearer&expires_in=3600' })
    await renderApp('/', { session: fakeSession() })
    expect(await screen.findByText('Signed in successfully!')).toBeInTheDocument()
  })

  it("shows Google's error from the fragment", async () => {
    resetInitialUrl({ pathname: '/', hash: '#error=access_denied&error_code=provider_error&error_description=Unverified+email+with+Google' })
    await renderApp('/')
    expect(await screen.findByText('Unverified email with Google')).toBeInTheDocument()
  })

  it('shows nothing on an ordinary visit, and the landing only once per visit', async () => {
    resetInitialUrl({ pathname: '/', hash: '#access_token=a&provider_token=g&refresh_token=r&token_type=bearer' })
    const { router, unmount } = await renderApp('/', { session: fakeSession() })
    expect(await screen.findByText('Signed in successfully!')).toBeInTheDocument()
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'), { timeout: 3000 })
    unmount()
    // Coming back to / later in the visit has nothing more to say.
    expect(initialAuthLanding()).toEqual({ kind: 'none' })
  })
})

describe('redirect screen stats (spec §1)', () => {
  it("shows 'Properties Listed 5000, Happy Clients 2500, Cities Covered 12' as plain numbers", async () => {
    // Without requestAnimationFrame the count-up shows its target at once.
    vi.stubGlobal('requestAnimationFrame', undefined)
    try {
      await renderApp('/')
      expect(await screen.findByText('5000')).toBeInTheDocument()
    } finally {
      vi.unstubAllGlobals()
    }
    expect(screen.getByText('2500')).toBeInTheDocument()
    expect(screen.getByText('12')).toBeInTheDocument()
    expect(screen.queryByText(/\+$/)).not.toBeInTheDocument()
  })
})
