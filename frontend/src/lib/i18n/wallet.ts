import type { MessageKey } from './en'
import { enWallet, type WalletKey } from './en-wallet'
import { addMessages, t, useTranslation, type MessageParams } from './i18n'
import { swWallet } from './sw-wallet'

// Registered when a chunk using this copy loads (/wallet, /my-p2p-offers, the
// signed-in dashboard on /home, the packages sheet), so the landing bundle
// never carries it.
addMessages({ en: enWallet, sw: swWallet })

/** Translates a key of the wallet, dashboard and My P2P Offers copy. */
export function tWallet(key: WalletKey, params?: MessageParams): string {
  return t(key as unknown as MessageKey, params)
}

/** Subscribes to language changes and hands out tWallet() (and the shell's t()). */
export function useWalletTranslation() {
  const { t: shellT, lang } = useTranslation()
  return { t: shellT, tWallet, lang }
}
