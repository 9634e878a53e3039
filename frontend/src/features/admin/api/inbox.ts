import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'
import { uniqueById } from './queue'

export type ReportRow = Database['public']['Tables']['reports']['Row']
export type ContactRow = Database['public']['Tables']['contact_messages']['Row']

/** How many of the newest reports and messages the inbox shows. */
const inboxWindow = 200

/** Users' reports (0024): open ones first (the newest 200 of them), then the newest 200 of all. */
export async function listReports(): Promise<ReportRow[]> {
  const read = (open: boolean) => {
    const all = supabase.from('reports').select('*')
    return (open ? all.eq('status', 'open') : all).order('created_at', { ascending: false }).limit(inboxWindow).throwOnError()
  }
  const [open, newest] = await Promise.all([read(true), read(false)])
  const rows = uniqueById([...(open.data ?? []), ...(newest.data ?? [])])
  return rows.sort((a, b) => Number(a.status !== 'open') - Number(b.status !== 'open'))
}

/** Contact-form messages (0024): new ones first (the newest 200 of them), then the newest 200 of all. */
export async function listContactMessages(): Promise<ContactRow[]> {
  const read = (unread: boolean) => {
    const all = supabase.from('contact_messages').select('*')
    return (unread ? all.eq('status', 'new') : all).order('created_at', { ascending: false }).limit(inboxWindow).throwOnError()
  }
  const [unread, newest] = await Promise.all([read(true), read(false)])
  const rows = uniqueById([...(unread.data ?? []), ...(newest.data ?? [])])
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
