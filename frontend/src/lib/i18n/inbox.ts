import type { MessageKey } from './en'
import { enInbox, type InboxKey } from './en-inbox'
import { addMessages, t, useTranslation, type MessageParams } from './i18n'
import { swInbox } from './sw-inbox'

// Registered when the inbox (messages, notifications) chunks load, so the
// landing bundle never carries this copy.
addMessages({ en: enInbox, sw: swInbox })

/** Translates a key of the inbox copy (/messages, the contact dialog, reports, notifications). */
export function tInbox(key: InboxKey, params?: MessageParams): string {
  return t(key as unknown as MessageKey, params)
}

/** Subscribes to language changes and hands out tInbox() (and the shell's t()). */
export function useInboxTranslation() {
  const { t: shellT, lang } = useTranslation()
  return { t: shellT, tInbox, lang }
}
