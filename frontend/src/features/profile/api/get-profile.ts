import { queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { profileKeys } from './keys'

/** The fields of the caller's profile the profile page shows and edits. */
export type Profile = Pick<Tables<'profiles'>, 'id' | 'full_name' | 'phone_number'>

/** The caller's own profile row (RLS: the owner reads it); null when it does not exist. */
export async function getProfile(userId: string, signal?: AbortSignal): Promise<Profile | null> {
  let request = supabase.from('profiles').select('id, full_name, phone_number').eq('id', userId)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data
}

export const getProfileQueryOptions = (userId: string) =>
  queryOptions({ queryKey: profileKeys.detail(userId), queryFn: ({ signal }) => getProfile(userId, signal) })

/** The profile of `userId`; idle until the user is known. */
export function useProfile(userId: string | undefined) {
  return useQuery({ ...getProfileQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}
