import { queryOptions, useQuery } from '@tanstack/react-query'

import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { kycKeys } from './keys'

/** The columns of a submission its owner sees. */
export const KYC_COLUMNS =
  'id, id_type, id_number, physical_address, photo_url, id_document_front_url, id_document_back_url, verification_status, admin_notes, reviewed_at, created_at, updated_at'

/**
 * The caller's identity submission. The three document columns hold paths
 * in the private `kyc` bucket (`<user id>/<file>`), shown through signed URLs.
 */
export type Kyc = Pick<
  Tables<'kyc_verifications'>,
  | 'id'
  | 'id_type'
  | 'id_number'
  | 'physical_address'
  | 'photo_url'
  | 'id_document_front_url'
  | 'id_document_back_url'
  | 'verification_status'
  | 'admin_notes'
  | 'reviewed_at'
  | 'created_at'
  | 'updated_at'
>

/** The caller's KYC submission (one per user; RLS: the owner reads it), or null before the first. */
export async function getKyc(userId: string, signal?: AbortSignal): Promise<Kyc | null> {
  let request = supabase.from('kyc_verifications').select(KYC_COLUMNS).eq('user_id', userId)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data as Kyc | null
}

export const getKycQueryOptions = (userId: string) =>
  queryOptions({ queryKey: kycKeys.mine(userId), queryFn: ({ signal }) => getKyc(userId, signal) })

/** The submission of `userId`; idle until the user is known. */
export function useKyc(userId: string | undefined) {
  return useQuery({ ...getKycQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** How the app shows a submission: its status, or 'none' before the first. */
export type KycState = 'none' | 'pending' | 'approved' | 'rejected'

/** The state of `kyc` (any status other than approved or rejected is pending review, spec §4). */
export function kycState(kyc: Pick<Kyc, 'verification_status'> | null | undefined): KycState {
  if (!kyc) return 'none'
  if (kyc.verification_status === 'approved' || kyc.verification_status === 'rejected') return kyc.verification_status
  return 'pending'
}
