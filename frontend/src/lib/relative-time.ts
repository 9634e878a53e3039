import { formatDate } from './format'
import type { Language } from './i18n/i18n'

const locales: Record<Language, string> = { en: 'en-KE', sw: 'sw-KE' }

const steps: readonly [limitSeconds: number, unit: Intl.RelativeTimeFormatUnit, seconds: number][] = [
  [45, 'second', 1],
  [45 * 60, 'minute', 60],
  [22 * 3600, 'hour', 3600],
  [7 * 86400, 'day', 86400],
]

/**
 * When something happened, as people say it: "now", "5 minutes ago",
 * "yesterday"; after a week, the date ("22 Nov 2026").
 */
export function formatRelativeTime(value: string, lang: Language, now: number = Date.now()): string {
  const time = Date.parse(value)
  if (Number.isNaN(time)) return ''
  const seconds = (time - now) / 1000
  const format = new Intl.RelativeTimeFormat(locales[lang], { numeric: 'auto' })
  if (Math.abs(seconds) < steps[0][0]) return format.format(0, 'second')
  for (const [limit, unit, size] of steps.slice(1)) {
    if (Math.abs(seconds) < limit) return format.format(Math.round(seconds / size), unit)
  }
  return formatDate(value, lang)
}
