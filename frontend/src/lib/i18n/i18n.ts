import { useSyncExternalStore } from 'react'

import { en, type Catalogue, type MessageKey } from './en'
import { sw } from './sw'

/** Languages the app ships catalogues for. */
export const languages = ['en', 'sw'] as const
export type Language = (typeof languages)[number]

/** localStorage key holding the chosen language. */
export const LANGUAGE_STORAGE_KEY = 'lang'

const catalogues: Record<Language, Catalogue> = { en, sw }
const listeners = new Set<() => void>()

function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (languages as readonly string[]).includes(value)
}

function readStoredLanguage(): Language {
  try {
    const stored = window.localStorage.getItem(LANGUAGE_STORAGE_KEY)
    return isLanguage(stored) ? stored : 'en'
  } catch {
    return 'en'
  }
}

let current: Language = readStoredLanguage()

/** The language in use now. */
export function getLanguage(): Language {
  return current
}

/**
 * Switches the language, stores it under localStorage `lang`, sets
 * <html lang> and re-renders every component using useTranslation().
 */
export function setLanguage(lang: Language): void {
  current = lang
  try {
    window.localStorage.setItem(LANGUAGE_STORAGE_KEY, lang)
  } catch {
    // Storage may be unavailable (private mode); the choice lasts this visit.
  }
  document.documentElement.lang = lang
  for (const listener of listeners) listener()
}

/** Re-reads the stored language; for app start-up and tests. */
export function initLanguage(): Language {
  current = readStoredLanguage()
  document.documentElement.lang = current
  return current
}

export type MessageParams = Record<string, string | number>

/**
 * Translates a key into the current language, filling `{name}` placeholders.
 * Falls back to English, then to the key itself.
 */
export function t(key: MessageKey, params?: MessageParams): string {
  const template = catalogues[current][key] ?? en[key] ?? key
  if (!params) return template
  return template.replace(/\{(\w+)\}/g, (match, name: string) =>
    name in params ? String(params[name]) : match,
  )
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Subscribes a component to language changes and hands it t(). */
export function useTranslation(): {
  t: typeof t
  lang: Language
  setLanguage: typeof setLanguage
} {
  const lang = useSyncExternalStore(subscribe, getLanguage, getLanguage)
  return { t, lang, setLanguage }
}
