import { paths } from '@/config/paths'
import type { MessageKey } from '@/lib/i18n/en'

export type NavItem = {
  to: string
  label: MessageKey
  requiresAuth?: boolean
  alsoActiveOn?: readonly string[]
}

/** The top navigation, in the spec's order. */
export const mainNavItems: readonly NavItem[] = [
  { to: paths.home, label: 'nav.home', alsoActiveOn: [paths.root] },
  { to: paths.properties, label: 'nav.properties', requiresAuth: true },
  { to: paths.marketplace, label: 'nav.marketplace', requiresAuth: true },
  { to: paths.lands, label: 'nav.lands', requiresAuth: true },
  { to: paths.p2p, label: 'nav.p2p', requiresAuth: true },
  { to: paths.services, label: 'nav.services' },
  { to: paths.pricing, label: 'nav.pricing' },
  { to: paths.about, label: 'nav.about' },
]
