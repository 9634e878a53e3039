import { env } from '@/config/env'

/** Shown wherever a listing has no image or its image fails to load. */
export const PLACEHOLDER_IMAGE = '/placeholder.svg'

function publicUrl(bucket: string, path: string, width?: number): string {
  const clean = path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')
  const base = `${env.supabaseUrl.replace(/\/+$/, '')}/storage/v1/`
  return width ? `${base}render/image/public/${bucket}/${clean}?width=${width}` : `${base}object/public/${bucket}/${clean}`
}

/**
 * The public URL of a listing image (spec §7): an empty path gives the
 * placeholder, absolute http(s) URLs pass through, anything else is a path
 * in the public `images` bucket. Same URL as
 * `supabase.storage.from('images').getPublicUrl(path, { transform: { width } })`,
 * computed without loading supabase-js: with a width, storage renders the
 * photo that wide (aspect kept, WebP where the browser takes it), so cards
 * and thumbnails do not download full photos.
 */
export function imageUrl(path: string | null | undefined, width?: number): string {
  const value = path?.trim()
  if (!value) return PLACEHOLDER_IMAGE
  if (/^https?:\/\//i.test(value)) return value
  return publicUrl('images', value, width)
}

/** The public URL of a user's avatar (bucket `avatars`, keyed by user id). */
export function avatarUrl(userId: string): string {
  return publicUrl('avatars', userId)
}

/** user_metadata key holding when the user last uploaded their avatar (ms since epoch). */
export const AVATAR_VERSION_KEY = 'avatar_version'

/**
 * The user's avatar URL with the upload time from their metadata as a
 * cache-buster: the object is overwritten in place under the same name, so
 * a new picture needs a new URL to show at once (storage ignores the query).
 */
export function userAvatarUrl(user: { id: string; user_metadata?: Record<string, unknown> }): string {
  const version = user.user_metadata?.[AVATAR_VERSION_KEY]
  const url = avatarUrl(user.id)
  return typeof version === 'number' || (typeof version === 'string' && version) ? `${url}?v=${encodeURIComponent(String(version))}` : url
}

/** onError handler for <img>: swap in the placeholder once. */
export function fallBackToPlaceholder(event: { currentTarget: HTMLImageElement }): void {
  const img = event.currentTarget
  if (!img.src.endsWith(PLACEHOLDER_IMAGE)) img.src = PLACEHOLDER_IMAGE
}
