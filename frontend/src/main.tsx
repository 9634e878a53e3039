// First: records the URL's auth fragment before supabase-js can clear it.
import '@/lib/initial-url'

import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'

import { App } from '@/app/app'
import { initLanguage } from '@/lib/i18n/i18n'
import { initTheme } from '@/lib/theme'

import './index.css'

// Before the first render, so the page never paints in the wrong theme.
initTheme()
initLanguage()

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
)

// The service worker (public/sw.js) only in production builds: in dev it
// would cache Vite's modules.
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => {
      // No offline support this visit; the app works without it.
    })
  })
}
