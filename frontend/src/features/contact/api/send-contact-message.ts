import { useMutation } from '@tanstack/react-query'
import { z } from 'zod'

import { supabase } from '@/lib/supabase'

/** The database's limits on a contact message (contact_messages checks, migration 0024). */
export const CONTACT_LIMITS = {
  /**
   * Each of first and last name, at least 1 (so the stored name, both joined
   * by a space, has the database's minimum of 2) and at most 50 (well within
   * its 120).
   */
  nameMax: 50,
  emailMax: 254,
  messageMin: 10,
  messageMax: 5000,
} as const

/**
 * The contact form (/contact and /about): first and last name at least one
 * character each (the stored name, both joined, at least 2), a valid e-mail,
 * a message of 10 to 5,000 characters. Messages are catalogue keys; the
 * spec's own texts where it has one ('Please enter your email address').
 */
export const contactSchema = z.object({
  firstName: z
    .string()
    .trim()
    .min(1, { error: 'contact.firstNameRequired' })
    .max(CONTACT_LIMITS.nameMax, { error: 'contact.nameTooLong' }),
  lastName: z
    .string()
    .trim()
    .min(1, { error: 'contact.lastNameRequired' })
    .max(CONTACT_LIMITS.nameMax, { error: 'contact.nameTooLong' }),
  email: z
    .string()
    .trim()
    .min(1, { error: 'home.newsletterEmpty', abort: true })
    .max(CONTACT_LIMITS.emailMax, { error: 'contact.emailTooLong', abort: true })
    .pipe(z.email({ error: 'validation.emailInvalid' })),
  message: z
    .string()
    .trim()
    .min(CONTACT_LIMITS.messageMin, { error: 'contact.messageTooShort' })
    .max(CONTACT_LIMITS.messageMax, { error: 'contact.messageTooLong' }),
})

export type ContactInput = z.input<typeof contactSchema>
export type ContactValues = z.output<typeof contactSchema>

/** The stored name: first and last joined by a space. */
export function contactName({ firstName, lastName }: Pick<ContactValues, 'firstName' | 'lastName'>): string {
  return [firstName.trim(), lastName.trim()].filter(Boolean).join(' ')
}

/**
 * Stores a message for the admins. Only name, email and message are sent
 * (the server fills in the rest), and nothing is read back: visitors may
 * write contact messages but not read them.
 */
export async function sendContactMessage(values: ContactValues): Promise<void> {
  await supabase
    .from('contact_messages')
    .insert({ name: contactName(values), email: values.email.trim(), message: values.message.trim() })
    .throwOnError()
}

export function useSendContactMessage() {
  return useMutation({ mutationFn: sendContactMessage })
}

/**
 * How a failed send is explained: the rate limit (the throttle trigger's
 * P0001 'Too many messages', hint 'Please wait a while before sending
 * another message.'), or a general failure with the server's message.
 */
export type ContactFailure = { kind: 'rate-limited' } | { kind: 'failed'; detail: string | null }

export function contactFailure(error: unknown): ContactFailure {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown }
  if (code === 'P0001' && message === 'Too many messages') return { kind: 'rate-limited' }
  return { kind: 'failed', detail: typeof message === 'string' && message ? message : null }
}
