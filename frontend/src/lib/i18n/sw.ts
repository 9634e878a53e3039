import type { Catalogue } from './en'
import { swAccount } from './sw-account'
import { swAuth } from './sw-auth'
import { swListings } from './sw-listings'
import { swShell } from './sw-shell'
import { swSite } from './sw-site'

/**
 * The complete Kiswahili catalogue, typed as Catalogue so a missing key
 * fails typecheck. The app loads it on demand (see i18n.ts); the shell's
 * part (sw-shell.ts) is always there.
 */
export const sw: Catalogue = { ...swShell, ...swSite, ...swAuth, ...swListings, ...swAccount }
