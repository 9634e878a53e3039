import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'

type Trade = Database['public']['Tables']['p2p_trades']['Row']
export type DisputeRow = Trade & { buyer_name: string | null; seller_name: string | null }

async function names(ids: string[]): Promise<Map<string, string | null>> {
  const map = new Map<string, string | null>()
  if (ids.length === 0) return map
  const { data } = await supabase.from('profiles').select('id, full_name').in('id', ids).throwOnError()
  for (const p of data ?? []) map.set(p.id, p.full_name)
  return map
}

/**
 * Open disputes, the longest waiting first (at most 100), then the 100
 * resolved most recently. Read apart: in one list ordered by last change,
 * a hundred newer resolutions would hide a dispute still open. Each read
 * walks its partial index (p2p_trades_disputed_idx, _resolved_idx).
 */
export async function listDisputes(): Promise<DisputeRow[]> {
  const read = (status: 'disputed' | 'resolved', ascending: boolean) =>
    supabase.from('p2p_trades').select('*').eq('status', status).order('updated_at', { ascending }).limit(100).throwOnError()
  const [open, closed] = await Promise.all([read('disputed', true), read('resolved', false)])
  const rows: Trade[] = [...(open.data ?? []), ...(closed.data ?? [])]
  const who = await names([...new Set(rows.flatMap((r) => [r.buyer_id, r.seller_id]))])
  return rows.map((r) => ({ ...r, buyer_name: who.get(r.buyer_id) ?? null, seller_name: who.get(r.seller_id) ?? null }))
}

export function useDisputes() {
  return useQuery({ queryKey: adminKeys.disputes(), queryFn: listDisputes })
}

/** A trade's events and chat. */
export async function getDisputeThread(tradeId: string) {
  const [events, messages] = await Promise.all([
    supabase.from('p2p_trade_events').select('*').eq('trade_id', tradeId).order('created_at').throwOnError(),
    supabase.from('p2p_trade_messages').select('*').eq('trade_id', tradeId).order('created_at').throwOnError(),
  ])
  return { events: events.data ?? [], messages: messages.data ?? [] }
}

export function useDisputeThread(tradeId: string) {
  return useQuery({ queryKey: adminKeys.dispute(tradeId), queryFn: () => getDisputeThread(tradeId) })
}

export const resolveSchema = z.object({
  resolution: z.enum(['buyer', 'seller'], { message: 'admin.disputes.resolutionRequired' }),
  notes: z.string().trim().min(1, 'admin.disputes.notesRequired').max(1000),
})
export type ResolveValues = z.infer<typeof resolveSchema>

export async function resolveDispute({ tradeId, values }: { tradeId: string; values: ResolveValues }) {
  await supabase.rpc('resolve_trade_dispute', { p_trade_id: tradeId, p_resolution: values.resolution, p_notes: values.notes.trim() }).throwOnError()
}

export function useResolveDispute() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: resolveDispute,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: adminKeys.disputes() }),
  })
}
