import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { MAX_NAME_LENGTH, MIN_NAME_LENGTH } from '@/config/account'
import type { MessageKey } from '@/lib/i18n/en'
import { MAX_PHONE_DIGITS, MIN_PHONE_DIGITS, normalizePhoneKe, phoneDigits } from '@/lib/phone'
import { supabase } from '@/lib/supabase'

import type { Profile } from './get-profile'
import { profileKeys } from './keys'

/**
 * The personal information form (spec §5): both fields optional; a name has
 * at least 2 characters, a phone number at least 10 digits. Messages are
 * catalogue keys.
 */
export const profileSchema = z.object({
  full_name: z
    .string()
    .trim()
    .max(MAX_NAME_LENGTH, { error: 'validation.tooLong' })
    .refine((value) => value === '' || value.length >= MIN_NAME_LENGTH, { error: 'profile.nameTooShort' }),
  phone_number: z
    .string()
    .trim()
    .refine((value) => /^[+\d\s().-]*$/.test(value), { error: 'profile.phoneCharacters', abort: true })
    .refine((value) => value === '' || phoneDigits(value).length >= MIN_PHONE_DIGITS, { error: 'profile.phoneTooShort' })
    .refine((value) => phoneDigits(value).length <= MAX_PHONE_DIGITS, { error: 'profile.phoneTooLong' }),
})

export type ProfileValues = z.output<typeof profileSchema>

/** What is stored: empty fields as null, the phone in E.164 (+254…). */
export function profileRow(values: ProfileValues): { full_name: string | null; phone_number: string | null } {
  return { full_name: values.full_name.trim() || null, phone_number: normalizePhoneKe(values.phone_number) }
}

/**
 * Saves the caller's name and phone to their profile (the database enforces
 * the same rules, see profileFieldError), then copies them into the
 * session's user_metadata so the account menu shows the new name at once.
 */
export async function updateProfile({ userId, values }: { userId: string; values: ProfileValues }): Promise<Profile> {
  const row = profileRow(values)
  const { data: updated } = await supabase
    .from('profiles')
    .update(row)
    .eq('id', userId)
    .select('id, full_name, phone_number')
    .maybeSingle()
    .throwOnError()
  let saved = updated
  if (!saved) {
    // Accounts get a profile when they are created; this covers one that was removed.
    const { data: inserted } = await supabase
      .from('profiles')
      .insert({ id: userId, ...row })
      .select('id, full_name, phone_number')
      .single()
      .throwOnError()
    saved = inserted
  }
  try {
    await supabase.auth.updateUser({ data: { full_name: saved.full_name, phone_number: saved.phone_number } })
  } catch {
    // The profile is saved; the menu shows the old name until the next sign-in.
  }
  return saved
}

export function useUpdateProfile() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (saved, { userId }) => {
      queryClient.setQueryData(profileKeys.detail(userId), saved)
      // A changed phone number is no longer verified (server-side trigger).
      return queryClient.invalidateQueries({ queryKey: profileKeys.verifications(userId) })
    },
  })
}

/** The profile fields a server error can be about. */
export type ProfileField = keyof ProfileValues

// The messages of the profiles_validate trigger (migration 0007).
const fieldErrors: Record<string, { field: ProfileField; message: MessageKey }> = {
  'Name must be at least 2 characters': { field: 'full_name', message: 'profile.nameTooShort' },
  'Phone number must be at least 10 digits': { field: 'phone_number', message: 'profile.phoneTooShort' },
}

/** The field a failed save is about, with its message key, or null for a form-wide error. */
export function profileFieldError(error: unknown): { field: ProfileField; message: MessageKey } | null {
  const message = error instanceof Error ? error.message : undefined
  return message ? (fieldErrors[message] ?? null) : null
}
