import { useMutation, useQueryClient } from '@tanstack/react-query'

import type { ContactChannel } from '@/config/account'
import type { MessageKey } from '@/lib/i18n/en'
import { supabase } from '@/lib/supabase'

import { profileKeys } from './keys'

/** What request_verification_code answers: where the code went, never the code. */
export type CodeSent = { channel: ContactChannel; destination: string; expires_at: string }

/**
 * Asks the server to send a six-digit code to the caller's e-mail or phone
 * (request_verification_code): it makes, hashes and sends the code, at most
 * one a minute.
 */
export async function requestVerificationCode({ channel }: { userId: string; channel: ContactChannel }): Promise<CodeSent> {
  const { data } = await supabase.rpc('request_verification_code', { p_channel: channel }).throwOnError()
  return data as unknown as CodeSent
}

/**
 * Checks a code (verify_contact_code): true marks the channel verified,
 * false is a wrong code; a missing or expired code raises its message.
 */
export async function verifyContactCode({ channel, code }: { userId: string; channel: ContactChannel; code: string }): Promise<boolean> {
  const { data } = await supabase.rpc('verify_contact_code', { p_channel: channel, p_code: code.trim() }).throwOnError()
  return data === true
}

export function useRequestVerificationCode() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: requestVerificationCode,
    onSettled: (_data, _error, { userId }) => queryClient.invalidateQueries({ queryKey: profileKeys.verifications(userId) }),
  })
}

export function useVerifyContactCode() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: verifyContactCode,
    onSettled: (_data, _error, { userId }) => queryClient.invalidateQueries({ queryKey: profileKeys.verifications(userId) }),
  })
}

// The messages request_verification_code and verify_contact_code raise
// (migrations 0007 and 0019), shown in the user's language.
const serverMessages: Record<string, MessageKey> = {
  'Please update your phone number in profile first': 'verify.needPhone',
  'Please wait a minute before requesting another code': 'verify.wait',
  'Your email is already verified': 'verify.emailAlready',
  'Your phone number is already verified': 'verify.phoneAlready',
  'No verification code found. Please request a new one.': 'verify.noCode',
  'Verification code has expired. Please request a new one.': 'verify.expired',
  'Failed to send verification code': 'verify.sendFailed',
}

/**
 * The message of a failed request or check: a known server message in the
 * user's language, another server message as-is, or `fallback`.
 */
export function verificationErrorMessage(error: unknown, translate: (key: MessageKey) => string, fallback: MessageKey): string {
  const message = error instanceof Error ? error.message : undefined
  if (!message) return translate(fallback)
  const key = serverMessages[message]
  return key ? translate(key) : message
}
