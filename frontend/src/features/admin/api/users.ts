import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'

export type AdminUserRow = Database['public']['Functions']['admin_list_users']['Returns'][number]

export const USERS_PAGE_SIZE = 20

/** One server-side page of admin_list_users (0028) with the total of all matches. */
export async function listUsers(search: string, page: number): Promise<{ items: AdminUserRow[]; total: number }> {
  const { data } = await supabase
    .rpc('admin_list_users', { p_search: search.trim() || null, p_limit: USERS_PAGE_SIZE, p_offset: (page - 1) * USERS_PAGE_SIZE })
    .throwOnError()
  const items = (data ?? []) as AdminUserRow[]
  return { items, total: items[0]?.total_count ?? 0 }
}

export function useUsers(search: string, page: number) {
  return useQuery({ queryKey: adminKeys.users(search, page), queryFn: () => listUsers(search, page), placeholderData: keepPreviousData })
}

/** Spec §9 suspension options. */
export const suspensionTypes = ['10_days', '30_days', '60_days', 'permanent'] as const

/** Spec §5: duration required, reason optional. */
export const suspendSchema = z.object({
  suspensionType: z.enum(suspensionTypes, { message: 'admin.users.durationRequired' }),
  reason: z.string().max(500).optional(),
})
export type SuspendValues = z.infer<typeof suspendSchema>

export async function suspendUser({ userId, adminId, values }: { userId: string; adminId: string; values: SuspendValues }) {
  await supabase
    .rpc('suspend_user', {
      p_user_id: userId,
      p_admin_id: adminId,
      p_suspension_type: values.suspensionType,
      p_reason: values.reason?.trim() || null,
    })
    .throwOnError()
}

export async function unsuspendUser({ userId, adminId }: { userId: string; adminId: string }) {
  await supabase.rpc('unsuspend_user', { p_user_id: userId, p_admin_id: adminId }).throwOnError()
}

function useInvalidateUsers() {
  const queryClient = useQueryClient()
  return () => {
    void queryClient.invalidateQueries({ queryKey: adminKeys.usersAll() })
    void queryClient.invalidateQueries({ queryKey: ['admin', 'user'] })
  }
}

export function useSuspendUser() {
  const invalidate = useInvalidateUsers()
  return useMutation({ mutationFn: suspendUser, onSuccess: invalidate })
}

/**
 * "Delete profile" (admin_delete_user, 0029): closes the account without
 * touching the ledger; refused for admins and users with coins in escrow.
 */
export async function deleteUser({ userId, reason }: { userId: string; reason?: string }) {
  await supabase.rpc('admin_delete_user', { p_user_id: userId, p_reason: reason?.trim() || null }).throwOnError()
}

export function useDeleteUser() {
  const invalidate = useInvalidateUsers()
  return useMutation({ mutationFn: deleteUser, onSuccess: invalidate })
}

export function useUnsuspendUser() {
  const invalidate = useInvalidateUsers()
  return useMutation({ mutationFn: unsuspendUser, onSuccess: invalidate })
}

export type AuditEntry = Database['public']['Tables']['admin_audit']['Row']

/** The user detail view: profile, e-mail, suspension, listings, trades, wallet history and audit. */
export async function getUserDetail(id: string) {
  const [profile, email, suspension, properties, lands, products, services, trades, wallet, audit] = await Promise.all([
    supabase.from('profiles').select('id, full_name, phone_number, created_at').eq('id', id).maybeSingle().throwOnError(),
    supabase.rpc('get_user_email', { p_user_id: id }).throwOnError(),
    supabase.rpc('get_user_suspension_info', { p_user_id: id }).throwOnError(),
    supabase.from('properties').select('id, title, payment_status, is_active, created_at').eq('user_id', id).order('created_at', { ascending: false }).throwOnError(),
    supabase.from('lands').select('id, title, payment_status, is_active, createdAt').eq('userid', id).order('createdAt', { ascending: false }).throwOnError(),
    supabase.from('products').select('id, name, payment_status, is_active, created_at').eq('user_id', id).order('created_at', { ascending: false }).throwOnError(),
    supabase.from('service_providers').select('id, name, payment_status, is_active, created_at').eq('userid', id).order('created_at', { ascending: false }).throwOnError(),
    supabase
      .from('p2p_trades')
      .select('id, buyer_id, seller_id, currency, amount, total_kes, status, created_at')
      .or(`buyer_id.eq.${id},seller_id.eq.${id}`)
      .order('created_at', { ascending: false })
      .limit(50)
      .throwOnError(),
    supabase
      .from('wallet_history')
      .select('id, currency, kind, amount, memo, created_at')
      .eq('user_id', id)
      .order('created_at', { ascending: false })
      .limit(50)
      .throwOnError(),
    supabase.from('admin_audit').select('*').eq('subject_user_id', id).order('created_at', { ascending: false }).limit(50).throwOnError(),
  ])
  const suspensions = (suspension.data ?? []) as unknown as { suspension_type: string; reason: string | null }[]
  const listings = [
    ...(properties.data ?? []).map((p) => ({ kind: 'property' as const, id: p.id, title: p.title, status: p.payment_status, active: p.is_active, created: p.created_at })),
    ...(lands.data ?? []).map((p) => ({ kind: 'land' as const, id: p.id, title: p.title, status: p.payment_status, active: p.is_active, created: p.createdAt })),
    ...(products.data ?? []).map((p) => ({ kind: 'product' as const, id: p.id, title: p.name, status: p.payment_status, active: p.is_active, created: p.created_at })),
    ...(services.data ?? []).map((p) => ({ kind: 'service' as const, id: p.id, title: p.name, status: p.payment_status, active: p.is_active, created: p.created_at })),
  ]
  return {
    id,
    email: (email.data as string | null) ?? null,
    profile: profile.data,
    suspension: suspensions[0] ?? null,
    listings,
    trades: trades.data ?? [],
    wallet: wallet.data ?? [],
    audit: (audit.data ?? []) as AuditEntry[],
  }
}
export type UserDetail = Awaited<ReturnType<typeof getUserDetail>>

export function useUserDetail(id: string) {
  return useQuery({ queryKey: adminKeys.user(id), queryFn: () => getUserDetail(id) })
}
