import { useMutation } from '@tanstack/react-query'
import { z } from 'zod'

import { paths } from '@/config/paths'
import { supabase } from '@/lib/supabase'

import { PASSWORD_MIN_LENGTH } from './sign-up'

export const forgotPasswordSchema = z.object({
  email: z.email({ error: 'validation.emailInvalid' }),
})
export type ForgotPasswordValues = z.infer<typeof forgotPasswordSchema>

/** Mails a recovery link that opens the reset-password page. */
export async function requestPasswordReset(values: ForgotPasswordValues): Promise<void> {
  const { error } = await supabase.auth.resetPasswordForEmail(values.email, {
    redirectTo: `${window.location.origin}${paths.resetPassword}`,
  })
  if (error) throw error
}

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: requestPasswordReset })
}

export const resetPasswordSchema = z
  .object({
    password: z.string().min(PASSWORD_MIN_LENGTH, { error: 'validation.passwordMin' }),
    confirm: z.string(),
  })
  .refine((value) => value.password === value.confirm, { path: ['confirm'], error: 'validation.passwordsDiffer' })
export type ResetPasswordValues = z.infer<typeof resetPasswordSchema>

/** Sets a new password for the user signed in by the recovery link. */
export async function updatePassword(values: ResetPasswordValues): Promise<void> {
  const { error } = await supabase.auth.updateUser({ password: values.password })
  if (error) throw error
}

export function useUpdatePassword() {
  return useMutation({ mutationFn: updatePassword })
}
