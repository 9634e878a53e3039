import type { MessageKey } from '@/lib/i18n/en'

/** The auth form fields a server error can be about. */
export type AuthField = 'email' | 'password'

/**
 * Supabase Auth's error codes that concern one field (style.md §4: map
 * server error_codes onto fields), with the message shown under it.
 */
const fieldErrors: Record<string, { field: AuthField; message: MessageKey }> = {
  email_exists: { field: 'email', message: 'auth.emailTaken' },
  user_already_exists: { field: 'email', message: 'auth.emailTaken' },
  email_address_invalid: { field: 'email', message: 'validation.emailInvalid' },
  weak_password: { field: 'password', message: 'auth.passwordTooWeak' },
  same_password: { field: 'password', message: 'auth.samePassword' },
}

/** The field a Supabase Auth error is about, with its message key, or null for a form-wide error. */
export function authFieldError(error: unknown): { field: AuthField; message: MessageKey } | null {
  const code = error && typeof error === 'object' && 'code' in error ? error.code : undefined
  return typeof code === 'string' ? (fieldErrors[code] ?? null) : null
}
