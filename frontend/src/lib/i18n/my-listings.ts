import { enMyListings, type MyListingsKey } from './en-my-listings'
import type { MessageKey } from './en'
import { addMessages, t, useTranslation, type MessageParams } from './i18n'
import { swMyListings } from './sw-my-listings'

// Registered when a My page's chunk loads, so the landing bundle never carries this copy.
addMessages({ en: enMyListings, sw: swMyListings })

/** Translates a key of the My listing pages' copy. */
export function tMy(key: MyListingsKey, params?: MessageParams): string {
  return t(key as unknown as MessageKey, params)
}

/** Subscribes to language changes and hands out tMy() (and the shell's t()). */
export function useMyListingsTranslation() {
  const { t: shellT, lang } = useTranslation()
  return { t: shellT, tMy, lang }
}
