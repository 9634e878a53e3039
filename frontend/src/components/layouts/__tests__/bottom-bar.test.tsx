import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'

import { fakeSession, renderApp, visibleToasts } from '@/testing/test-utils'

const bottomBar = () => screen.getByRole('navigation', { name: 'Mobile navigation' })

describe('mobile bottom bar', () => {
  it('is hidden from 768 px up and has the spec items', async () => {
    await renderApp('/home')
    const bar = bottomBar()
    expect(bar).toHaveClass('md:hidden')

    const links = within(bar).getAllByRole('link')
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Home', '/home'],
      ['Search', '/search'],
      ['P2P', '/p2p'],
      ['Messages', '/login'],
      ['Profile', '/login'],
    ])
  })

  it('highlights P2P only', async () => {
    await renderApp('/home')
    const highlighted = within(bottomBar())
      .getAllByRole('link')
      .filter((link) => link.hasAttribute('data-highlighted'))
    expect(highlighted.map((link) => link.textContent)).toEqual(['P2P'])
  })

  it('signed out, Messages asks to sign in and remembers /messages', async () => {
    const { router, user } = await renderApp('/home')
    await user.click(within(bottomBar()).getByRole('link', { name: 'Messages' }))

    expect(router.state.location.pathname).toBe('/login')
    expect(router.state.location.state).toEqual({ from: '/messages' })
    expect(visibleToasts()[0]).toHaveTextContent('Please sign in to access this page')
  })

  it('signed in, Messages and Profile go to their pages', async () => {
    await renderApp('/home', { session: fakeSession() })
    const bar = bottomBar()
    expect(within(bar).getByRole('link', { name: 'Messages' })).toHaveAttribute('href', '/messages')
    expect(within(bar).getByRole('link', { name: 'Profile' })).toHaveAttribute('href', '/profile')
  })
})
