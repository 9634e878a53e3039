import { enDiscover, type DiscoverKey } from './en-discover'
import type { MessageKey } from './en'
import { addMessages, t, useTranslation, type MessageParams } from './i18n'
import { swDiscover } from './sw-discover'

// Registered when a chunk using this copy loads (search, saved, contact, the
// listing pages' heart, the auth forms), so the landing bundle never carries it.
addMessages({ en: enDiscover, sw: swDiscover })

/** Translates a key of the discover copy (search, saved listings, contact). */
export function td(key: DiscoverKey, params?: MessageParams): string {
  return t(key as unknown as MessageKey, params)
}

/** Subscribes to language changes and hands out td() (and the shell's t()). */
export function useDiscoverTranslation() {
  const { t: shellT, lang } = useTranslation()
  return { t: shellT, td, lang }
}
