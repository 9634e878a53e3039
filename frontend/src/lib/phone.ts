/** Fewest digits a profile phone number may have (spec §5, §9). */
export const MIN_PHONE_DIGITS = 10
/** Most digits an E.164 number has. */
export const MAX_PHONE_DIGITS = 15

/** The digits of a phone number, without spaces, '+' or punctuation. */
export function phoneDigits(value: string): string {
  return value.replace(/\D/g, '')
}

/**
 * A phone number in E.164, the same rule as the database's
 * public.normalize_phone_ke (migration 0019): Kenyan local forms (07…, 01…,
 * 7…, 1…) become +254…, any other number keeps its digits behind a '+'.
 * Null when there are no digits.
 */
export function normalizePhoneKe(value: string): string | null {
  const digits = phoneDigits(value)
  if (!digits) return null
  if (/^0[17]\d{8}$/.test(digits)) return `+254${digits.slice(1)}`
  if (/^[17]\d{8}$/.test(digits)) return `+254${digits}`
  return `+${digits}`
}
