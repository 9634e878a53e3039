import { queryOptions, useQuery } from '@tanstack/react-query'

import type { ContactChannel } from '@/config/account'
import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { profileKeys } from './keys'

/** The caller's verification flags and when their pending codes expire (never the codes). */
export type ContactVerification = Pick<
  Tables<'user_verifications'>,
  'email_verified' | 'phone_verified' | 'email_verification_expires_at' | 'phone_verification_expires_at'
>

const NONE: ContactVerification = {
  email_verified: false,
  phone_verified: false,
  email_verification_expires_at: null,
  phone_verification_expires_at: null,
}

/** The caller's row of user_verifications (RLS: the owner reads it); all false without one. */
export async function getVerifications(userId: string, signal?: AbortSignal): Promise<ContactVerification> {
  let request = supabase
    .from('user_verifications')
    .select('email_verified, phone_verified, email_verification_expires_at, phone_verification_expires_at')
    .eq('user_id', userId)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data ?? NONE
}

export const getVerificationsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: profileKeys.verifications(userId), queryFn: ({ signal }) => getVerifications(userId, signal) })

export function useVerifications(userId: string | undefined) {
  return useQuery({ ...getVerificationsQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** Whether `channel` is verified. */
export function isVerified(verification: ContactVerification, channel: ContactChannel): boolean {
  return channel === 'email' ? verification.email_verified : verification.phone_verified
}

/** When the pending code of `channel` expires, as ms since epoch; null when none is pending. */
export function pendingCodeExpiry(verification: ContactVerification, channel: ContactChannel): number | null {
  const value = channel === 'email' ? verification.email_verification_expires_at : verification.phone_verification_expires_at
  return value ? Date.parse(value) : null
}
