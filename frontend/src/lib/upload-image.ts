import { env } from '@/config/env'

import { resizeImage } from './image-resize'
import { supabase } from './supabase'

const extensionOf: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
}

/** Accepted photo types (the `images` bucket's allowed MIME types). */
export const ACCEPTED_IMAGE_TYPES = Object.keys(extensionOf)

/** The step an upload is at, for progress display. */
export type UploadStage = 'resizing' | 'uploading'

/**
 * Resizes a photo and uploads it to the public `images` bucket under the
 * user's folder; returns the storage path to keep in the listing row.
 */
export async function uploadListingImage(
  file: File,
  userId: string,
  onStage?: (stage: UploadStage) => void,
): Promise<string> {
  onStage?.('resizing')
  const body = await resizeImage(file)
  const type = body.type || file.type
  const path = `${userId}/${crypto.randomUUID()}.${extensionOf[type] ?? 'jpg'}`
  onStage?.('uploading')
  if (body.size > RESUMABLE_THRESHOLD) {
    await uploadResumable(body, path, type)
    return path
  }
  const { error } = await supabase.storage.from('images').upload(path, body, { contentType: type, upsert: false })
  if (error) throw error
  return path
}

/**
 * Above this size a photo goes up with TUS, resumable after a dropped
 * connection (Supabase recommends it above 6 MB).
 */
export const RESUMABLE_THRESHOLD = 6 * 1024 * 1024

async function uploadResumable(body: Blob, path: string, contentType: string): Promise<void> {
  // Loaded only here: the TUS client stays out of every route's bundle.
  const [{ resumableUpload }, { data }] = await Promise.all([import('./resumable-upload'), supabase.auth.getSession()])
  await resumableUpload(body, {
    supabaseUrl: env.supabaseUrl,
    apikey: env.supabaseAnonKey,
    accessToken: data.session?.access_token ?? env.supabaseAnonKey,
    bucket: 'images',
    path,
    contentType,
  })
}

/**
 * Deletes a photo this form uploaded and the user then removed, so it does
 * not linger in storage. Failure only leaves the file behind.
 */
export async function discardListingImage(path: string): Promise<void> {
  await supabase.storage.from('images').remove([path])
}
