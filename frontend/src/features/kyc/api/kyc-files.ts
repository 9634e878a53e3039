import { queryOptions, useMutation, useQuery } from '@tanstack/react-query'

import { KYC_FILE_MAX_BYTES, KYC_FILE_TYPES, KYC_SIGNED_URL_SECONDS } from '@/config/account'
import type { MessageKey } from '@/lib/i18n/en'
import { resizeImage } from '@/lib/image-resize'
import { supabase } from '@/lib/supabase'

import { kycKeys } from './keys'

/** The documents of a submission, named in their storage paths. */
export type KycDocumentSlot = 'selfie' | 'id-front' | 'id-back'

/** A file the `kyc` bucket would refuse, with the message to show. */
export class KycFileProblem extends Error {
  readonly key: MessageKey

  constructor(key: MessageKey) {
    super(key)
    this.key = key
    this.name = 'KycFileProblem'
  }
}

const extensionOf: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'application/pdf': 'pdf' }

function isAcceptedType(type: string): boolean {
  return (KYC_FILE_TYPES as readonly string[]).includes(type)
}

/** True when a stored document path is a PDF (shown as a link, not a picture). */
export function isPdfPath(path: string): boolean {
  return /\.pdf$/i.test(path)
}

/**
 * Uploads one document to the private `kyc` bucket under the caller's
 * folder (`<user id>/<slot>-<uuid>.<ext>`), photos shrunk first as listing
 * photos are; returns the path to store in the submission. A file that is
 * not JPG, PNG or PDF, or over 10 MB, is refused with KycFileProblem.
 */
export async function uploadKycFile({ userId, slot, file }: { userId: string; slot: KycDocumentSlot; file: File }): Promise<string> {
  if (!isAcceptedType(file.type)) throw new KycFileProblem('kyc.fileType')
  const body = file.type === 'application/pdf' ? file : await resizeImage(file)
  const type = isAcceptedType(body.type) ? body.type : file.type
  if (body.size > KYC_FILE_MAX_BYTES) throw new KycFileProblem('kyc.fileTooLarge')
  const path = `${userId}/${slot}-${crypto.randomUUID()}.${extensionOf[type] ?? 'jpg'}`
  const { error } = await supabase.storage.from('kyc').upload(path, body, { contentType: type, upsert: false })
  if (error) throw error
  return path
}

export function useUploadKycFile() {
  return useMutation({ mutationFn: uploadKycFile })
}

/** A short-lived signed link to a document of the private `kyc` bucket (owner and admins only). */
export async function getKycFileUrl(path: string): Promise<string> {
  const { data, error } = await supabase.storage.from('kyc').createSignedUrl(path, KYC_SIGNED_URL_SECONDS)
  if (error) throw error
  return data.signedUrl
}

export const getKycFileUrlQueryOptions = (path: string) =>
  queryOptions({
    queryKey: kycKeys.file(path),
    queryFn: () => getKycFileUrl(path),
    // Renewed a minute before the link expires.
    staleTime: (KYC_SIGNED_URL_SECONDS - 60) * 1000,
    gcTime: (KYC_SIGNED_URL_SECONDS - 60) * 1000,
  })

/** The signed link of `path`; idle without a path. */
export function useKycFileUrl(path: string | null | undefined) {
  return useQuery({ ...getKycFileUrlQueryOptions(path ?? ''), enabled: Boolean(path) })
}
