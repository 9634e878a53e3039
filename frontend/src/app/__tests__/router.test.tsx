import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'

import { renderApp } from '@/testing/test-utils'

import indexHtml from '../../../index.html?raw'

describe('routes', () => {
  it.each(['/', '/home'])('%s renders the placeholder home inside the shell', async (path) => {
    await renderApp(path)
    expect(await screen.findByRole('heading', { level: 1, name: 'KejaNest' })).toBeInTheDocument()
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument()
    expect(screen.getByRole('contentinfo')).toBeInTheDocument()
  })

  it.each(['/pricing', '/about', '/no/such/page'])('%s renders "Coming soon" inside the shell', async (path) => {
    await renderApp(path)
    expect(await screen.findByRole('heading', { level: 1, name: 'Coming soon' })).toBeInTheDocument()
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument()
  })

  it("titles the page 'KejaNest' by default", () => {
    expect(indexHtml).toContain('<title>KejaNest</title>')
  })
})
