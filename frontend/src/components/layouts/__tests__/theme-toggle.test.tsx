import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'

import { initTheme, resolveInitialTheme, THEME_STORAGE_KEY } from '@/lib/theme'
import { stubMatchMedia } from '@/testing/browser-stubs'
import { renderApp, visibleToasts } from '@/testing/test-utils'

describe('theme', () => {
  it('falls back to prefers-color-scheme when nothing is stored', () => {
    stubMatchMedia({ dark: true })
    expect(resolveInitialTheme()).toBe('dark')
    stubMatchMedia({ dark: false })
    expect(resolveInitialTheme()).toBe('light')
  })

  it('prefers the stored theme over the system preference', () => {
    stubMatchMedia({ dark: true })
    window.localStorage.setItem(THEME_STORAGE_KEY, 'light')
    expect(resolveInitialTheme()).toBe('light')
    initTheme()
    expect(document.documentElement).not.toHaveClass('dark')
  })

  it('toggles dark mode, stores "theme" and confirms with a toast', async () => {
    const { user } = await renderApp('/home')
    expect(document.documentElement).not.toHaveClass('dark')

    await user.click(screen.getByRole('button', { name: 'Switch to dark mode' }))
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark')
    expect(document.documentElement).toHaveClass('dark')
    expect(visibleToasts()).toHaveLength(1)
    expect(visibleToasts()[0]).toHaveTextContent('Dark mode activated')

    await user.click(screen.getByRole('button', { name: 'Switch to light mode' }))
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('light')
    expect(document.documentElement).not.toHaveClass('dark')
    expect(visibleToasts()).toHaveLength(1)
    expect(visibleToasts()[0]).toHaveTextContent('Light mode activated')
  })

  it('starts dark when the system prefers it', async () => {
    stubMatchMedia({ dark: true })
    initTheme()
    await renderApp('/home')
    expect(document.documentElement).toHaveClass('dark')
    expect(screen.getByRole('button', { name: 'Switch to light mode' })).toBeInTheDocument()
  })
})
