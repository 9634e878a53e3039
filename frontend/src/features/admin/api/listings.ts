import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import type { AuditEntry } from './users'
import { adminKeys } from './keys'
import { queueWindow, waitingThenNewest } from './queue'

export type ListingKind = 'property' | 'land' | 'product' | 'service'

/** The five moderation sections of the sidebar. */
export type ListingSection = 'properties' | 'lands' | 'marketplace' | 'drone-services' | 'moving-services'

export const sectionKind: Record<ListingSection, ListingKind> = {
  properties: 'property',
  lands: 'land',
  marketplace: 'product',
  'drone-services': 'service',
  'moving-services': 'service',
}

/** One listing as the moderation queue shows it, whatever its table. */
export type ModerationItem = {
  kind: ListingKind
  id: string
  title: string
  ownerId: string
  ownerName: string | null
  price: number | null
  location: string | null
  paymentStatus: string
  isActive: boolean
  verified: boolean | null
  notes: string | null
  createdAt: string
}

type Raw = Record<string, unknown>

async function fetchRows(section: ListingSection): Promise<Raw[]> {
  switch (section) {
    case 'properties': {
      // Properties and products wait for an admin's approval (spec §9).
      const columns = 'id, title, user_id, price, location, payment_status, is_active, moderation_notes, created_at'
      const rows = await waitingThenNewest<Raw>('properties', columns, ['payment_status', 'pending'])
      return rows.map((r) => ({ ...r, owner: r.user_id, created: r.created_at }))
    }
    case 'lands': {
      // Land goes live on payment: none waits for approval.
      const { data } = await supabase
        .from('lands')
        .select('id, title, userid, price, location, payment_status, is_active, moderation_notes, createdAt')
        .order('createdAt', { ascending: false })
        .limit(queueWindow)
        .throwOnError()
      return (data ?? []).map((r) => ({ ...r, owner: r.userid, created: r.createdAt }))
    }
    case 'marketplace': {
      const columns = 'id, name, user_id, price, location, payment_status, is_active, moderation_notes, created_at'
      const rows = await waitingThenNewest<Raw>('products', columns, ['payment_status', 'pending'])
      return rows.map((r) => ({ ...r, title: r.name, owner: r.user_id, created: r.created_at }))
    }
    default: {
      // A provider waits for an admin's verification (the card shows
      // 'Pending Verification' until then).
      const columns = 'id, name, userid, location, category, verified, payment_status, is_active, moderation_notes, created_at'
      const category = section === 'drone-services' ? 'Drone' : 'Moving'
      const rows = await waitingThenNewest<Raw>('service_providers', columns, ['verified', false], { scope: ['category', category] })
      return rows.map((r) => ({ ...r, title: r.name, price: null, owner: r.userid, created: r.created_at }))
    }
  }
}

/** The section's listings: pending review first, then unverified providers, then newest. */
export async function listModeration(section: ListingSection): Promise<ModerationItem[]> {
  const rows = await fetchRows(section)
  const owners = [...new Set(rows.map((r) => String(r.owner)))]
  const names = new Map<string, string | null>()
  if (owners.length > 0) {
    const { data } = await supabase.from('profiles').select('id, full_name').in('id', owners).throwOnError()
    for (const p of data ?? []) names.set(p.id, p.full_name)
  }
  const items: ModerationItem[] = rows.map((r) => ({
    kind: sectionKind[section],
    id: String(r.id),
    title: (r.title as string | null) ?? '',
    ownerId: String(r.owner),
    ownerName: names.get(String(r.owner)) ?? null,
    price: (r.price as number | null) ?? null,
    location: (r.location as string | null) ?? null,
    paymentStatus: String(r.payment_status),
    isActive: r.is_active === true,
    verified: typeof r.verified === 'boolean' ? r.verified : null,
    notes: (r.moderation_notes as string | null) ?? null,
    createdAt: String(r.created),
  }))
  const rank = (item: ModerationItem) => (item.paymentStatus === 'pending' ? 0 : item.verified === false ? 1 : 2)
  return items.sort((a, b) => rank(a) - rank(b))
}

export function useModeration(section: ListingSection) {
  return useQuery({ queryKey: adminKeys.listings(section), queryFn: () => listModeration(section) })
}

export async function getListingAudit(targetId: string): Promise<AuditEntry[]> {
  const { data } = await supabase.from('admin_audit').select('*').eq('target_id', targetId).order('created_at', { ascending: false }).throwOnError()
  return (data ?? []) as AuditEntry[]
}

export function useListingAudit(targetId: string, enabled: boolean) {
  return useQuery({ queryKey: adminKeys.audit(targetId), queryFn: () => getListingAudit(targetId), enabled })
}

export type ModerationAction =
  | { type: 'approve' | 'reject' | 'deactivate'; item: ModerationItem; reason?: string }
  | { type: 'verify'; item: ModerationItem; verified: boolean }

export async function moderate(action: ModerationAction): Promise<void> {
  const { item } = action
  if (action.type === 'approve' || action.type === 'reject') {
    await supabase
      .rpc('moderate_listing', {
        p_kind: item.kind,
        p_listing_id: item.id,
        p_action: action.type === 'approve' ? 'approved' : 'rejected',
        p_notes: action.reason?.trim() || null,
      })
      .throwOnError()
  } else if (action.type !== 'verify') {
    await supabase.rpc('admin_deactivate_listing', { p_kind: item.kind, p_listing_id: item.id, p_reason: action.reason?.trim() || null }).throwOnError()
  } else {
    await supabase.rpc('verify_service_provider', { p_service_id: item.id, p_verified: action.verified }).throwOnError()
  }
}

export function useModerate(section: ListingSection) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: moderate,
    onSuccess: (_data, action) => {
      void queryClient.invalidateQueries({ queryKey: adminKeys.listings(section) })
      void queryClient.invalidateQueries({ queryKey: adminKeys.audit(action.item.id) })
      void queryClient.invalidateQueries({ queryKey: adminKeys.stats() })
    },
  })
}
