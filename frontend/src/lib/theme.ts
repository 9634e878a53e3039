import { useSyncExternalStore } from 'react'

export type Theme = 'light' | 'dark'

/** localStorage key holding the chosen theme. */
export const THEME_STORAGE_KEY = 'theme'

const listeners = new Set<() => void>()

function isTheme(value: unknown): value is Theme {
  return value === 'light' || value === 'dark'
}

/** The theme the user chose earlier, if any. */
export function getStoredTheme(): Theme | null {
  try {
    const stored = window.localStorage.getItem(THEME_STORAGE_KEY)
    return isTheme(stored) ? stored : null
  } catch {
    return null
  }
}

/** The operating system's preference (light when it cannot be read). */
export function getSystemTheme(): Theme {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
}

/** The stored choice, falling back to prefers-color-scheme. */
export function resolveInitialTheme(): Theme {
  return getStoredTheme() ?? getSystemTheme()
}

/** Puts the theme on <html>: the `dark` class switches the CSS variables. */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement
  root.classList.toggle('dark', theme === 'dark')
  root.style.colorScheme = theme
}

let current: Theme = 'light'

/** The theme in use now. */
export function getTheme(): Theme {
  return current
}

/** Resolves and applies the start-up theme without storing it. */
export function initTheme(): Theme {
  current = resolveInitialTheme()
  applyTheme(current)
  for (const listener of listeners) listener()
  return current
}

/** Applies the theme and stores it under localStorage `theme`. */
export function setTheme(theme: Theme): void {
  current = theme
  applyTheme(theme)
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, theme)
  } catch {
    // Storage may be unavailable; the choice lasts this visit.
  }
  for (const listener of listeners) listener()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Subscribes a component to the current theme. */
export function useTheme(): { theme: Theme; setTheme: typeof setTheme } {
  const theme = useSyncExternalStore(subscribe, getTheme, getTheme)
  return { theme, setTheme }
}
