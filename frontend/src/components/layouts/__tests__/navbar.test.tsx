import { act, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'

import {
  createSlowAuthClient,
  fakeSession,
  renderApp,
  renderAppWithAuth,
  visibleToasts,
} from '@/testing/test-utils'

const mainNav = () => screen.getByRole('navigation', { name: 'Main navigation' })

// Pages behind these links fetch data: answer from an in-memory client, never the network.
vi.mock('@/lib/supabase', async () => {
  const { createFakeSupabase } = await import('@/testing/fake-supabase')
  return { supabase: createFakeSupabase().client }
})

describe('navigation bar', () => {
  it('lists the spec links in order', async () => {
    await renderApp('/home')
    const names = within(mainNav())
      .getAllByRole('link')
      .map((link) => link.textContent)
    expect(names).toEqual([
      'Home',
      'Properties',
      'Marketplace',
      'Lands',
      'P2P',
      'Services',
      'Pricing',
      'About Us',
    ])
    expect(within(mainNav()).getByRole('link', { name: 'Home' })).toHaveAttribute('href', '/home')
    expect(within(mainNav()).getByRole('link', { name: 'About Us' })).toHaveAttribute('href', '/about')
    expect(within(mainNav()).getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page')
  })

  it.each(['Properties', 'Marketplace', 'Lands', 'P2P'])(
    'signed out, %s shows the sign-in message and goes to /login remembering the origin',
    async (name) => {
      const { router, user } = await renderApp('/home')
      const link = within(mainNav()).getByRole('link', { name })
      const target = `/${name.toLowerCase()}`

      await user.click(link)

      expect(router.state.location.pathname).toBe('/login')
      expect(router.state.location.state).toEqual({ from: target })
      expect(visibleToasts()).toHaveLength(1)
      expect(visibleToasts()[0]).toHaveTextContent('Please sign in to access this page')
      expect(visibleToasts()[0]).toHaveAttribute('data-variant', 'info')
    },
  )

  it('a guarded link followed before the session is known still ends at /login once it is', async () => {
    const { client, release } = createSlowAuthClient()
    const { router, user } = renderAppWithAuth('/home', client)
    await screen.findByRole('heading', { level: 1 })

    await user.click(within(mainNav()).getByRole('link', { name: 'Marketplace' }))
    expect(router.state.location.pathname).toBe('/marketplace')
    expect(visibleToasts()).toHaveLength(0)

    await act(async () => release())
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'))
    expect(router.state.location.state).toEqual({ from: '/marketplace' })
    expect(router.state.historyAction).toBe('REPLACE')
    expect(visibleToasts()).toHaveLength(1)
    expect(visibleToasts()[0]).toHaveTextContent('Please sign in to access this page')
    expect(visibleToasts()[0]).toHaveAttribute('data-variant', 'info')
  })

  it('a guarded link followed before the session is known stays put for a signed-in user', async () => {
    const { client, release } = createSlowAuthClient(fakeSession())
    const { router, user } = renderAppWithAuth('/home', client)
    await screen.findByRole('heading', { level: 1 })
    await user.click(within(mainNav()).getByRole('link', { name: 'Lands' }))
    await act(async () => release())
    expect(await screen.findByRole('heading', { level: 1, name: 'Land for Sale and Lease' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/lands')
    expect(visibleToasts()).toHaveLength(0)
    // The mark is gone once checked: signing out here later is no guarded visit.
    await waitFor(() => expect(router.state.location.state).toBeNull())
    await act(async () => {
      await client.signOut()
    })
    expect(router.state.location.pathname).toBe('/lands')
    expect(visibleToasts()).toHaveLength(0)
  })

  it('signed out, open pages need no sign-in', async () => {
    const { router, user } = await renderApp('/home')
    await user.click(within(mainNav()).getByRole('link', { name: 'Services' }))
    expect(router.state.location.pathname).toBe('/services')
    expect(visibleToasts()).toHaveLength(0)
    expect(await screen.findByRole('heading', { level: 1, name: 'Home Services' })).toBeInTheDocument()
  })

  it('signed in, guarded links go straight to their page', async () => {
    const { router, user } = await renderApp('/home', { session: fakeSession() })
    await user.click(within(mainNav()).getByRole('link', { name: 'Properties' }))
    expect(router.state.location.pathname).toBe('/properties')
    expect(visibleToasts()).toHaveLength(0)
  })

  it('switches the whole shell to Kiswahili from the language switcher', async () => {
    const { user } = await renderApp('/home')
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'sw')

    expect(window.localStorage.getItem('lang')).toBe('sw')
    const nav = screen.getByRole('navigation', { name: 'Urambazaji mkuu' })
    expect(within(nav).getByRole('link', { name: 'Nyumbani' })).toBeInTheDocument()
    expect(within(nav).getByRole('link', { name: 'Kuhusu Sisi' })).toHaveAttribute('href', '/about')
    expect(document.documentElement.lang).toBe('sw')
    expect(screen.getByRole('combobox', { name: 'Lugha' })).toHaveValue('sw')
  })
})

describe('account menu', () => {
  it('signed out, offers Log in and Sign up', async () => {
    const { user } = await renderApp('/home')
    await user.click(screen.getByRole('button', { name: 'Account menu' }))

    const menu = await screen.findByRole('menu')
    const items = within(menu).getAllByRole('menuitem')
    expect(items.map((item) => item.textContent)).toEqual(['Log in', 'Sign up'])
    expect(items[0]).toHaveAttribute('href', '/login')
    expect(items[1]).toHaveAttribute('href', '/register')
  })

  it('signed in, shows email, full name, the account pages and Log out', async () => {
    const session = fakeSession({ email: 'otieno@example.com', fullName: 'Otieno Ouma' })
    const { user, router, authClient } = await renderApp('/home', { session })
    await user.click(screen.getByRole('button', { name: 'Account menu' }))

    const menu = await screen.findByRole('menu')
    expect(menu).toHaveTextContent('otieno@example.com')
    expect(menu).toHaveTextContent('Otieno Ouma')
    expect(within(menu).getAllByRole('menuitem').map((item) => item.textContent)).toEqual([
      'Dashboard',
      'My Properties',
      'My Products',
      'My Lands',
      'My Services',
      'My P2P Offers',
      'Saved Listings',
      'Profile',
      'Log out',
    ])
    expect(within(menu).getByRole('menuitem', { name: 'My P2P Offers' })).toHaveAttribute(
      'href',
      '/my-p2p-offers',
    )

    await user.click(within(menu).getByRole('menuitem', { name: 'Log out' }))
    expect(authClient.signOut).toHaveBeenCalledOnce()
    expect(router.state.location.pathname).toBe('/home')

    await user.click(screen.getByRole('button', { name: 'Account menu' }))
    expect(
      within(await screen.findByRole('menu')).getByRole('menuitem', { name: 'Log in' }),
    ).toBeInTheDocument()
  })

  it("shows 'User' when the account has no full name", async () => {
    const { user } = await renderApp('/home', { session: fakeSession() })
    await user.click(screen.getByRole('button', { name: 'Account menu' }))
    expect(await screen.findByRole('menu')).toHaveTextContent('User')
  })
})
