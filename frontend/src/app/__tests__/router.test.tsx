import { act, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'

import { fake } from '@/testing/supabase-mock'
import { renderApp, visibleToasts } from '@/testing/test-utils'

import indexHtml from '../../../index.html?raw'

vi.mock('@/lib/supabase', () => import('@/testing/supabase-mock'))

describe('routes', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('/ shows the redirect screen, titles the page and moves on to /home after 1 s', async () => {
    const { router } = await renderApp('/')
    expect(await screen.findByRole('heading', { level: 1, name: 'Redirecting to KejaNest' })).toBeInTheDocument()
    expect(document.title).toBe('KejaNest - Real Estate and Household Items in Kenya')
    expect(document.querySelector('meta[name="description"]')?.getAttribute('content')).toMatch(/Kenya's leading platform/)
    expect(screen.getByRole('link', { name: 'Karen' })).toHaveAttribute('href', '/properties?location=Karen')
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100))
    })
    expect(router.state.location.pathname).toBe('/home')
  })

  it('/home renders the landing page inside the shell', async () => {
    await renderApp('/home')
    expect(await screen.findByRole('heading', { level: 1, name: /KejaNest/ })).toBeInTheDocument()
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument()
    expect(screen.getByRole('contentinfo')).toBeInTheDocument()
  })

  it('/home searches properties and answers the newsletter without calling the server', async () => {
    const { user, router } = await renderApp('/home')
    const newsletter = screen.getByRole('button', { name: 'Subscribe' })
    await user.click(newsletter)
    await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('Please enter your email address'))
    await user.type(screen.getByLabelText('Email address'), 'wanjiku@example.com')
    await user.click(newsletter)
    await waitFor(() => expect(visibleToasts()[0]).toHaveTextContent('Thank you for subscribing!'))
    expect(fake.requests).toHaveLength(0)

    await user.type(screen.getByRole('searchbox', { name: 'Search properties' }), 'Kilimani 2 bedroom')
    await user.click(screen.getByRole('button', { name: 'Search' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/properties'))
    expect(new URLSearchParams(router.state.location.search).get('query')).toBe('Kilimani 2 bedroom')
  })

  it.each([
    ['/about', 'About KejaNest'],
    ['/terms', 'Terms of Service'],
    ['/privacy', 'Privacy Policy'],
    ['/pricing', 'Nestcoins Pricing'],
  ])('%s renders its page', async (path, heading) => {
    await renderApp(path)
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument()
  })

  it('unknown paths render "Coming soon" inside the shell', async () => {
    await renderApp('/no/such/page')
    expect(await screen.findByRole('heading', { level: 1, name: 'Coming soon' })).toBeInTheDocument()
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument()
  })

  it("titles the page 'KejaNest' by default", () => {
    expect(indexHtml).toContain('<title>KejaNest</title>')
  })
})
