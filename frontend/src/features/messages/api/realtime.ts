import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import type { RealtimeChannel } from '@supabase/supabase-js'
import { useEffect } from 'react'

import { supabase } from '@/lib/supabase'

import { withMessage, type Message } from './get-messages'
import { messageKeys } from './keys'

type Subscription = { channel: RealtimeChannel; holders: number }

// One channel per user however many parts of the screen want the inbox live
// (the badges in the shell and the /messages page).
const subscriptions = new Map<string, Subscription>()
let channelSerial = 0

function isMessage(row: unknown): row is Message {
  const value = row as Partial<Message> | null
  return typeof value?.id === 'string' && typeof value.conversation_id === 'string' && typeof value.created_at === 'string'
}

/** Applies a new message to the cache: its thread shows it, the list re-sorts and counts it. */
export function applyNewMessage(queryClient: QueryClient, userId: string, row: unknown): void {
  if (isMessage(row)) {
    const key = messageKeys.thread(row.conversation_id)
    if (queryClient.getQueryData(key)) queryClient.setQueryData<Message[]>(key, (messages) => withMessage(messages, row))
    void queryClient.invalidateQueries({ queryKey: key })
  }
  void queryClient.invalidateQueries({ queryKey: messageKeys.conversations(userId) })
}

/** A conversation changed (read marks, last_message_at, a new one): re-read the list and headers. */
export function applyConversationChange(queryClient: QueryClient, userId: string): void {
  void queryClient.invalidateQueries({ queryKey: messageKeys.conversations(userId) })
  void queryClient.invalidateQueries({ queryKey: [...messageKeys.all, 'conversation', userId] })
}

/**
 * Keeps the caller's inbox live through Realtime postgres_changes: new rows
 * of messages and changes of conversations (RLS sends only the user's own).
 * Returns the release; the channel closes with its last holder.
 */
export function holdMessagesChannel(queryClient: QueryClient, userId: string): () => void {
  let subscription = subscriptions.get(userId)
  if (!subscription) {
    channelSerial += 1
    const channel = supabase
      .channel(`inbox-messages:${userId}:${channelSerial}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (payload) =>
        applyNewMessage(queryClient, userId, payload.new),
      )
      .on('postgres_changes', { event: '*', schema: 'public', table: 'conversations' }, () =>
        applyConversationChange(queryClient, userId),
      )
      .subscribe((status) => {
        // Joined (or joined again after a drop): re-read once, so nothing
        // that happened between the first read and the join is missed.
        if (status === 'SUBSCRIBED') void queryClient.invalidateQueries({ queryKey: messageKeys.all })
      })
    subscription = { channel, holders: 0 }
    subscriptions.set(userId, subscription)
  }
  const held = subscription
  held.holders += 1
  let released = false
  return () => {
    if (released) return
    released = true
    held.holders -= 1
    if (held.holders > 0) return
    if (subscriptions.get(userId) === held) subscriptions.delete(userId)
    void supabase.removeChannel(held.channel)
  }
}

/** Keeps the caller's conversations and threads live while mounted (`enabled`). */
export function useMessagesRealtime(userId: string | undefined, enabled = true) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!userId || !enabled) return
    return holdMessagesChannel(queryClient, userId)
  }, [queryClient, userId, enabled])
}
