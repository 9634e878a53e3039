import { enAdmin, type AdminKey } from './en-admin'
import type { MessageKey } from './en'
import { addMessages, t, useTranslation, type MessageParams } from './i18n'
import { swAdmin } from './sw-admin'

// Registered when an admin chunk loads, so the public bundles never carry this copy.
addMessages({ en: enAdmin, sw: swAdmin })

/** Translates a key of the admin panel's copy. */
export function tA(key: AdminKey, params?: MessageParams): string {
  return t(key as unknown as MessageKey, params)
}

/** Subscribes to language changes and hands out tA() (and the shell's t()). */
export function useAdminTranslation() {
  const { t: shellT, lang } = useTranslation()
  return { t: shellT, tA, lang }
}
