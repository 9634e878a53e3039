import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'
import { waitingThenNewest } from './queue'

type Submission = Database['public']['Tables']['kyc_verifications']['Row']
export type KycRow = Submission & { full_name: string | null }

/** Every submission awaiting review, then the newest (see queue.ts), pending ones first, with the submitter's name. */
export async function listKyc(signal?: AbortSignal): Promise<KycRow[]> {
  const rows = await waitingThenNewest<Submission>('kyc_verifications', '*', ['verification_status', 'pending'], { signal })
  const ids = [...new Set(rows.map((row) => row.user_id))]
  const names = new Map<string, string | null>()
  if (ids.length > 0) {
    const { data: profiles } = await supabase.from('profiles').select('id, full_name').in('id', ids).throwOnError()
    for (const p of profiles ?? []) names.set(p.id, p.full_name)
  }
  const rank = (status: string) => (status === 'pending' ? 0 : 1)
  return rows
    .map((row) => ({ ...row, full_name: names.get(row.user_id) ?? null }))
    .sort((a, b) => rank(a.verification_status) - rank(b.verification_status))
}

export function useKycList() {
  return useQuery({ queryKey: adminKeys.kyc(), queryFn: ({ signal }) => listKyc(signal) })
}

/** Signed links to the private bucket live this long (seconds). */
export const KYC_LINK_SECONDS = 120

/** A short-lived signed URL of a document path in the private `kyc` bucket; absolute URLs pass through. */
export async function getKycDocumentUrl(path: string): Promise<string> {
  if (/^https?:\/\//i.test(path)) return path
  const { data, error } = await supabase.storage.from('kyc').createSignedUrl(path, KYC_LINK_SECONDS)
  if (error) throw error
  return data.signedUrl
}

export function useKycDocumentUrl(path: string | null) {
  return useQuery({
    queryKey: adminKeys.kycFile(path ?? ''),
    queryFn: () => getKycDocumentUrl(path!),
    enabled: !!path,
    // Re-sign before the link lapses.
    staleTime: (KYC_LINK_SECONDS - 20) * 1000,
    refetchInterval: (KYC_LINK_SECONDS - 20) * 1000,
    retry: false,
  })
}

export async function processKyc({ id, adminId, action, notes }: { id: string; adminId: string; action: 'approved' | 'rejected'; notes: string }) {
  await supabase.rpc('process_kyc_verification', { p_kyc_id: id, p_admin_id: adminId, p_action: action, p_notes: notes.trim() || null }).throwOnError()
}

export function useProcessKyc() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: processKyc,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: adminKeys.kyc() })
      void queryClient.invalidateQueries({ queryKey: adminKeys.stats() })
    },
  })
}
