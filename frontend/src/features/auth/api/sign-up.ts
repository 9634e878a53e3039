import { useMutation } from '@tanstack/react-query'
import { z } from 'zod'

import { t } from '@/lib/i18n/i18n'
import { supabase } from '@/lib/supabase'

/** Spec §9: the minimum is shown as help text and enforced here too. */
export const PASSWORD_MIN_LENGTH = 8

export const signUpSchema = z.object({
  fullName: z.string().trim().min(1, { error: 'validation.fullNameRequired' }).max(120, { error: 'validation.tooLong' }),
  email: z.email({ error: 'validation.emailInvalid' }),
  password: z.string().min(PASSWORD_MIN_LENGTH, { error: 'validation.passwordMin' }),
  terms: z.boolean().refine(Boolean, { error: 'validation.termsRequired' }),
})

export type SignUpValues = z.infer<typeof signUpSchema>

/**
 * Creates the account with full_name and role 'user' in its metadata; the
 * confirmation mail links back to the site root. Returns whether a session
 * started at once (auto-confirm) or the user must confirm first.
 */
export async function signUp(values: SignUpValues): Promise<{ confirmed: boolean }> {
  const { data, error } = await supabase.auth.signUp({
    email: values.email,
    password: values.password,
    options: {
      data: { full_name: values.fullName, role: 'user' },
      emailRedirectTo: window.location.origin,
    },
  })
  if (error) throw error
  if (!data.user) throw new Error(t('auth.registrationFailed'))
  return { confirmed: Boolean(data.session) }
}

export function useSignUp() {
  return useMutation({ mutationFn: signUp })
}
