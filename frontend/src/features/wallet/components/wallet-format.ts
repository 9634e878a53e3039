import { detailPath } from '@/config/paths'
import { getLanguage, type Language } from '@/lib/i18n/i18n'
import type { ListingKind } from '@/lib/listing-fees'

/** The detail page of a listing of each kind. */
export const listingDetail: Record<ListingKind, (id: string) => string> = {
  property: detailPath.property,
  product: detailPath.product,
  land: detailPath.land,
  service: detailPath.service,
}

const locales: Record<Language, string> = { en: 'en-KE', sw: 'sw-KE' }

/** A ledger time in the app's language, e.g. "25 Nov 2026, 14:05". */
export function formatDateTime(value: string, lang: Language = getLanguage()): string {
  return new Date(value).toLocaleString(locales[lang], { dateStyle: 'medium', timeStyle: 'short' })
}

/** A signed whole amount, e.g. "+300" or "-196" (zero unsigned). */
export function formatSigned(value: number, lang: Language = getLanguage()): string {
  return Math.round(value).toLocaleString(locales[lang], { signDisplay: 'exceptZero' })
}
