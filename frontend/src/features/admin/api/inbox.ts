import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'
import { waitingThenNewest } from './queue'

export type ReportRow = Database['public']['Tables']['reports']['Row']
export type ContactRow = Database['public']['Tables']['contact_messages']['Row']

/** Users' reports (0024): open ones first, then the newest (see queue.ts). */
export async function listReports(): Promise<ReportRow[]> {
  const rows = await waitingThenNewest<ReportRow>('reports', '*', ['status', 'open'])
  return rows.sort((a, b) => Number(a.status !== 'open') - Number(b.status !== 'open'))
}

/** Contact-form messages (0024): new ones first, then the newest (see queue.ts). */
export async function listContactMessages(): Promise<ContactRow[]> {
  const rows = await waitingThenNewest<ContactRow>('contact_messages', '*', ['status', 'new'])
  return rows.sort((a, b) => Number(a.status !== 'new') - Number(b.status !== 'new'))
}

export function useReports() {
  return useQuery({ queryKey: adminKeys.reports(), queryFn: listReports })
}

export function useContactMessages() {
  return useQuery({ queryKey: adminKeys.contact(), queryFn: listContactMessages })
}

export function useUpdateReport() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, status, adminId }: { id: number; status: 'resolved' | 'dismissed'; adminId: string }) => {
      await supabase
        .from('reports')
        .update({ status, resolved_by: adminId, resolved_at: new Date().toISOString() })
        .eq('id', id)
        .throwOnError()
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: adminKeys.reports() }),
  })
}

export function useMarkContactHandled() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (id: number) => {
      await supabase.from('contact_messages').update({ status: 'handled' }).eq('id', id).throwOnError()
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: adminKeys.contact() }),
  })
}
