import type { MessageKey } from './en'
import { enP2p, type P2pKey } from './en-p2p'
import { addMessages, t, useTranslation, type MessageParams } from './i18n'
import { swP2p } from './sw-p2p'

// Registered when a P2P page's chunk loads, so the landing bundle never carries this copy.
addMessages({ en: enP2p, sw: swP2p })

/** Translates a key of the P2P exchange's copy. */
export function tP2p(key: P2pKey, params?: MessageParams): string {
  return t(key as unknown as MessageKey, params)
}

/** Subscribes to language changes and hands out tP2p() (and the shell's t()). */
export function useP2pTranslation() {
  const { t: shellT, lang } = useTranslation()
  return { t: shellT, tP2p, lang }
}
