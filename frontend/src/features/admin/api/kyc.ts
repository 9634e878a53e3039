import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'
import { uniqueById } from './queue'

export type KycRow = Database['public']['Tables']['kyc_verifications']['Row'] & { full_name: string | null }

/**
 * Every submission awaiting review (the newest 200 of them) and the newest
 * 200 of all, pending ones first, with the submitter's name. Both reads
 * walk an index (kyc_verifications_pending_idx, _created_at_idx).
 */
export async function listKyc(signal?: AbortSignal): Promise<KycRow[]> {
  const read = (pending: boolean) => {
    const all = supabase.from('kyc_verifications').select('*')
    const query = (pending ? all.eq('verification_status', 'pending') : all).order('created_at', { ascending: false }).limit(200)
    return (signal ? query.abortSignal(signal) : query).throwOnError()
  }
  const [pending, newest] = await Promise.all([read(true), read(false)])
  const rows = uniqueById([...(pending.data ?? []), ...(newest.data ?? [])])
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
