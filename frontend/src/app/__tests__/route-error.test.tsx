import { screen } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { renderApp } from '@/testing/test-utils'

// Make the home page throw while rendering, through the real route table.
vi.mock('@/app/routes/home', () => ({
  HomeRoute: () => {
    throw new Error('home exploded')
  },
}))

describe('router errorElement', () => {
  beforeEach(() => {
    // React and the error element log the thrown error; keep the output clean.
    vi.spyOn(console, 'error').mockImplementation(() => {})
  })

  it.each(['/home'])("shows 'Unexpected Application Error!' when %s throws", async (path) => {
    await renderApp(path)
    expect(
      await screen.findByRole('heading', { name: 'Unexpected Application Error!' }),
    ).toBeInTheDocument()
    // The page failed, not the shell: navigation is still there.
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/home')
  })

  it('other pages still render', async () => {
    await renderApp('/about')
    expect(await screen.findByRole('heading', { name: 'About KejaNest' })).toBeInTheDocument()
    expect(screen.queryByText('Unexpected Application Error!')).not.toBeInTheDocument()
  })
})
