import { useMutation } from '@tanstack/react-query'

import { AVATAR_MAX_BYTES, AVATAR_TYPES } from '@/config/account'
import type { MessageKey } from '@/lib/i18n/en'
import { AVATAR_VERSION_KEY } from '@/lib/storage'
import { supabase } from '@/lib/supabase'

/** Why `file` cannot be an avatar (spec §5: JPG, PNG or GIF under 2MB), or null when it can. */
export function avatarProblem(file: File): MessageKey | null {
  if (!(AVATAR_TYPES as readonly string[]).includes(file.type)) return 'profile.avatarType'
  if (file.size > AVATAR_MAX_BYTES) return 'profile.avatarTooLarge'
  return null
}

/**
 * Uploads the caller's picture to the public `avatars` bucket under their
 * user id, overwriting the old one, then records the upload time in their
 * user_metadata: the avatar's URL carries it (lib/storage userAvatarUrl), so
 * the account menu and this page show the new picture at once.
 */
export async function uploadAvatar({ userId, file }: { userId: string; file: File }): Promise<number> {
  const { error } = await supabase.storage
    .from('avatars')
    .upload(userId, file, { upsert: true, contentType: file.type, cacheControl: '3600' })
  if (error) throw error
  const version = Date.now()
  try {
    await supabase.auth.updateUser({ data: { [AVATAR_VERSION_KEY]: version } })
  } catch {
    // The picture is stored; browsers may show the cached old one for up to an hour.
  }
  return version
}

export function useUploadAvatar() {
  return useMutation({ mutationFn: uploadAvatar })
}
