import { useSyncExternalStore } from 'react'

import { en, type Catalogue, type MessageKey } from './en'
import { swShell } from './sw-shell'

/** Languages the app ships catalogues for. */
export const languages = ['en', 'sw'] as const
export type Language = (typeof languages)[number]

/** localStorage key holding the chosen language. */
export const LANGUAGE_STORAGE_KEY = 'lang'

const catalogues: Record<Language, Partial<Catalogue>> = { en, sw: swShell }
// Copy a lazily loaded page brings along (addMessages), outside the shell's catalogues.
const pageMessages: Record<Language, Record<string, string>> = { en: {}, sw: {} }
let swahiliLoad: Promise<void> | undefined
// Bumped when a catalogue arrives, so subscribed components re-render.
let catalogueVersion = 0

/**
 * Loads the pages' Kiswahili copy (its own chunk, so English visitors never
 * download it) and re-renders once it is in. Until then pages fall back to
 * English while the shell is already in Kiswahili.
 */
export function loadSwahili(): Promise<void> {
  swahiliLoad ??= import('./sw').then(({ sw }) => {
    catalogues.sw = sw
    catalogueVersion += 1
    for (const listener of listeners) listener()
  })
  return swahiliLoad
}
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
  if (lang === 'sw') void loadSwahili()
  for (const listener of listeners) listener()
}

/** Re-reads the stored language; for app start-up and tests. */
export function initLanguage(): Language {
  current = readStoredLanguage()
  document.documentElement.lang = current
  if (current === 'sw') void loadSwahili()
  return current
}

/** Adds a lazily loaded page's own copy in both languages; t() then finds its keys. */
export function addMessages(messages: Record<Language, Record<string, string>>): void {
  for (const lang of languages) Object.assign(pageMessages[lang], messages[lang])
}

export type MessageParams = Record<string, string | number>

/**
 * Translates a key into the current language, filling `{name}` placeholders.
 * Falls back to English, then to the key itself.
 */
export function t(key: MessageKey, params?: MessageParams): string {
  const template = catalogues[current][key] ?? pageMessages[current][key] ?? catalogues.en[key] ?? pageMessages.en[key] ?? key
  if (!params) return template
  return template.replace(/\{(\w+)\}/g, (match, name: string) =>
    name in params ? String(params[name]) : match,
  )
}

function snapshot(): string {
  return `${current}:${catalogueVersion}`
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
  useSyncExternalStore(subscribe, snapshot, snapshot)
  const lang = getLanguage()
  return { t, lang, setLanguage }
}
