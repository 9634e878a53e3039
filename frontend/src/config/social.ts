import type { MessageKey } from '@/lib/i18n/en'

/**
 * Social profiles linked from the footer. The spec names no accounts, so
 * these point at each network's home page until the company's handles exist.
 */
export const socialLinks: readonly { href: string; label: MessageKey }[] = [
  { href: 'https://www.facebook.com/', label: 'social.facebook' },
  { href: 'https://x.com/', label: 'social.x' },
  { href: 'https://www.instagram.com/', label: 'social.instagram' },
  { href: 'https://www.linkedin.com/', label: 'social.linkedin' },
]
