import { queryOptions, useQuery } from '@tanstack/react-query'

import { THREAD_PAGE_SIZE } from '@/config/inbox'
import type { Tables } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

import { messageKeys } from './keys'

/** A message of a conversation. */
export type Message = Tables<'messages'>

/** Oldest first, by time then id (two messages may share a timestamp). */
export function compareMessages(a: Message, b: Message): number {
  const byTime = Date.parse(a.created_at) - Date.parse(b.created_at)
  return byTime !== 0 ? byTime : a.id.localeCompare(b.id)
}

/** `messages` with `message` added once, kept in order. */
export function withMessage(messages: readonly Message[] | undefined, message: Message): Message[] {
  const list = messages ?? []
  if (list.some((existing) => existing.id === message.id)) return [...list]
  return [...list, message].sort(compareMessages)
}

/** The newest messages of a conversation (RLS: its two parties), oldest first. */
export async function getMessages(conversationId: string, signal?: AbortSignal): Promise<Message[]> {
  let request = supabase
    .from('messages')
    .select('id, conversation_id, sender_id, body, created_at')
    .eq('conversation_id', conversationId)
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(THREAD_PAGE_SIZE)
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return (Array.isArray(data) ? [...data] : []).sort(compareMessages)
}

export const getMessagesQueryOptions = (conversationId: string) =>
  queryOptions({ queryKey: messageKeys.thread(conversationId), queryFn: ({ signal }) => getMessages(conversationId, signal) })

/** The thread of /messages/:id. */
export function useMessages(conversationId: string) {
  return useQuery({ ...getMessagesQueryOptions(conversationId), enabled: Boolean(conversationId) })
}
