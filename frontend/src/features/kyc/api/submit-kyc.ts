import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { kycIdNumberPatterns, kycIdTypes, kycSingleSidedTypes, type KycIdType } from '@/config/account'
import type { MessageKey } from '@/lib/i18n/en'
import { supabase } from '@/lib/supabase'

import { KYC_COLUMNS, type Kyc } from './get-kyc'
import { kycKeys } from './keys'

/** An ID number as stored: no spaces or hyphens, letters upper-case. */
export function normalizeIdNumber(value: string): string {
  return value.replace(/[\s-]/g, '').toUpperCase()
}

/** The message for a number that does not fit its document type. */
export const idNumberMessages: Record<KycIdType, MessageKey> = {
  'National ID': 'kyc.idNumberNationalId',
  Passport: 'kyc.idNumberPassport',
  'Alien ID': 'kyc.idNumberAlienId',
  'Maisha Namba': 'kyc.idNumberMaisha',
}

/**
 * The KYC form: a document type, its number in that type's format (see
 * kycIdNumberPatterns), the physical address, a selfie and the document's
 * front, and its back unless the document is single-sided (a passport).
 * The document fields hold paths in the `kyc` bucket. Messages are keys.
 */
export const kycSchema = z
  .object({
    id_type: z.enum(kycIdTypes, { error: 'kyc.idTypeRequired' }),
    id_number: z.string(),
    physical_address: z
      .string()
      .trim()
      .min(5, { error: 'kyc.addressRequired' })
      .max(300, { error: 'validation.tooLong' }),
    photo_url: z.string().min(1, { error: 'kyc.selfieRequired' }),
    id_document_front_url: z.string().min(1, { error: 'kyc.frontRequired' }),
    id_document_back_url: z.string(),
  })
  .superRefine((values, ctx) => {
    const number = normalizeIdNumber(values.id_number)
    const pattern = kycIdNumberPatterns[values.id_type]
    if (!number) ctx.addIssue({ code: 'custom', path: ['id_number'], message: 'kyc.idNumberRequired' })
    else if (pattern && !pattern.test(number)) {
      ctx.addIssue({ code: 'custom', path: ['id_number'], message: idNumberMessages[values.id_type] })
    }
    if (!kycSingleSidedTypes.includes(values.id_type) && !values.id_document_back_url) {
      ctx.addIssue({ code: 'custom', path: ['id_document_back_url'], message: 'kyc.backRequired' })
    }
  })

export type KycInput = z.input<typeof kycSchema>
export type KycValues = z.output<typeof kycSchema>

/**
 * Sends the caller's documents for review: the first submission is an
 * insert; a later one (after a rejection) updates the row, which the
 * database puts back to pending and clears the old decision.
 */
export async function submitKyc({ userId, existingId, values }: { userId: string; existingId: string | null; values: KycValues }): Promise<Kyc> {
  const row = {
    id_type: values.id_type,
    id_number: normalizeIdNumber(values.id_number),
    physical_address: values.physical_address.trim(),
    photo_url: values.photo_url,
    id_document_front_url: values.id_document_front_url,
    id_document_back_url: values.id_document_back_url || null,
  }
  if (existingId) {
    const { data } = await supabase.from('kyc_verifications').update(row).eq('id', existingId).select(KYC_COLUMNS).single().throwOnError()
    return data as Kyc
  }
  const { data } = await supabase
    .from('kyc_verifications')
    .insert({ user_id: userId, ...row })
    .select(KYC_COLUMNS)
    .single()
    .throwOnError()
  return data as Kyc
}

export function useSubmitKyc() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: submitKyc,
    onSuccess: (saved, { userId }) => {
      queryClient.setQueryData(kycKeys.mine(userId), saved)
      return queryClient.invalidateQueries({ queryKey: kycKeys.mine(userId) })
    },
  })
}
