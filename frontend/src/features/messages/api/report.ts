import { useMutation } from '@tanstack/react-query'
import { z } from 'zod'

import { REPORT_REASON_MAX_LENGTH, REPORT_REASON_MIN_LENGTH } from '@/config/inbox'
import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

/** What a report is about: the conversation itself or the listing it concerns. */
export type ReportTarget = 'conversation' | 'listing'

/** The report form: a target and a reason of 3 to 1000 characters once trimmed (reports_reason_check). */
export const reportSchema = z.object({
  target: z.enum(['conversation', 'listing']),
  reason: z
    .string()
    .trim()
    .min(REPORT_REASON_MIN_LENGTH, { error: 'inbox.reportReasonShort' })
    .max(REPORT_REASON_MAX_LENGTH, { error: 'inbox.reportReasonLong' }),
})
export type ReportValues = z.output<typeof reportSchema>

/** The caller already has an open report of this target (reports_one_open_per_target, 23505). */
export class AlreadyReportedError extends Error {
  constructor() {
    super('already reported')
    this.name = 'AlreadyReportedError'
  }
}

/** The reports row of a report about a conversation (its id) or its listing (kind and id). */
export function reportRow(
  values: ReportValues,
  conversation: { id: string; listing_kind: ListingKind; listing_id: string },
): { target_kind: 'conversation' | ListingKind; target_id: string; reason: string } {
  return values.target === 'conversation'
    ? { target_kind: 'conversation', target_id: conversation.id, reason: values.reason }
    : { target_kind: conversation.listing_kind, target_id: conversation.listing_id, reason: values.reason }
}

/** Files a report for the admins; a second open report of the same target is refused as AlreadyReportedError. */
export async function createReport(row: { target_kind: 'conversation' | ListingKind; target_id: string; reason: string }): Promise<void> {
  const { error } = await supabase.from('reports').insert(row)
  if (error?.code === '23505') throw new AlreadyReportedError()
  if (error) throw error
}

export function useCreateReport() {
  return useMutation({ mutationFn: createReport })
}
