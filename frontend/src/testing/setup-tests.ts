import '@testing-library/jest-dom/vitest'

import { cleanup, configure } from '@testing-library/react'
import { afterEach, beforeEach } from 'vitest'

import { resetToasts } from '@/hooks/use-toast'
import { initLanguage } from '@/lib/i18n/i18n'
import { initTheme } from '@/lib/theme'

import { installBrowserStubs } from './browser-stubs'

// The machine running CI is busy and page chunks load lazily: give findBy*
// and waitFor more than the default second.
configure({ asyncUtilTimeout: 15_000 })

// Every test starts signed-out-clean: no stored choices, English, and the
// theme resolved from a light system preference.
beforeEach(() => {
  installBrowserStubs()
  window.localStorage.clear()
  initLanguage()
  initTheme()
})

afterEach(() => {
  cleanup()
  resetToasts()
  window.localStorage.clear()
})
