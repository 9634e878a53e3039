import { getLanguage, type Language } from './i18n/i18n'

// style.md §4: money through Intl's KES currency style (en-KE prints
// "Ksh"), whole shillings as spec §1 says.
const kesFormatter = new Intl.NumberFormat('en-KE', { style: 'currency', currency: 'KES', maximumFractionDigits: 0 })
const wholeShillings = new Intl.NumberFormat('en-KE', { maximumFractionDigits: 0 })

/** Formats an amount of Kenyan shillings with no decimals, e.g. "Ksh 1,500". */
export function formatKES(amount: number): string {
  return kesFormatter.format(amount)
}

/** A service provider's price as its card shows it (spec §9: "in KSh"), e.g. "KSh 15,000". */
export function formatKSh(amount: number): string {
  return `KSh ${wholeShillings.format(amount)}`
}

/** The Kenyan locale of each app language, for Intl. */
const locales: Record<Language, string> = { en: 'en-KE', sw: 'sw-KE' }

/** A calendar date in the app's current language, e.g. "22 Nov 2026". */
export function formatDate(value: string | Date, lang: Language = getLanguage()): string {
  return new Date(value).toLocaleDateString(locales[lang], { dateStyle: 'medium' })
}

/** A whole number with Kenyan digit grouping, e.g. "12,345". */
export function formatNumber(value: number, lang: Language = getLanguage()): string {
  return value.toLocaleString(locales[lang], { maximumFractionDigits: 4 })
}

/** A Nestcoin amount, digit-grouped and whole, e.g. "1,150". */
export function formatNestcoins(value: number, lang: Language = getLanguage()): string {
  return Math.round(value).toLocaleString(locales[lang])
}
