import { queryOptions, useQuery } from '@tanstack/react-query'

import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { messageKeys } from './keys'

/** One row of conversation_list: the listing, the other party, the last message and the caller's unread count. */
export type ConversationSummary = Database['public']['Views']['conversation_list']['Row']

export const conversationColumns =
  'id, listing_kind, listing_id, listing_title, my_role, other_party_id, other_party_name, last_message, last_sender_id, last_message_at, created_at, unread_count'

/** The caller's conversations (the view keeps to their own), newest message first. */
export async function getConversations(signal?: AbortSignal): Promise<ConversationSummary[]> {
  let request = supabase
    .from('conversation_list')
    .select(conversationColumns)
    .order('last_message_at', { ascending: false })
    .order('id')
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return Array.isArray(data) ? data : []
}

export const getConversationsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: messageKeys.conversations(userId), queryFn: ({ signal }) => getConversations(signal) })

/** The signed-in user's conversations; idle until the user is known. */
export function useConversations(userId: string | undefined) {
  return useQuery({ ...getConversationsQueryOptions(userId ?? ''), enabled: Boolean(userId) })
}

/** Unread messages over all conversations. */
export function totalUnread(conversations: readonly Pick<ConversationSummary, 'unread_count'>[]): number {
  return conversations.reduce((sum, conversation) => sum + (Number(conversation.unread_count) || 0), 0)
}

/** The caller's unread message count, read from the same cache as the /messages list. */
export function useUnreadMessageCount(userId: string | undefined) {
  return useQuery({ ...getConversationsQueryOptions(userId ?? ''), enabled: Boolean(userId), select: totalUnread })
}

/** One conversation of the caller; null when it is not theirs or does not exist. */
export async function getConversation(id: string, signal?: AbortSignal): Promise<ConversationSummary | null> {
  let request = supabase.from('conversation_list').select(conversationColumns).eq('id', id)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.maybeSingle().throwOnError()
  return data ?? null
}

/** The header facts of /messages/:id. */
export function useConversation(userId: string | undefined, id: string) {
  return useQuery({
    queryKey: messageKeys.conversation(userId ?? '', id),
    queryFn: ({ signal }) => getConversation(id, signal),
    enabled: Boolean(userId && id),
  })
}
