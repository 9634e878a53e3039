import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { MESSAGE_MAX_LENGTH } from '@/config/inbox'
import { supabase } from '@/lib/supabase'

import { withMessage, type Message } from './get-messages'
import { messageKeys } from './keys'

/**
 * A message as the composer and the contact dialog take it: 1 to 2000
 * characters once trimmed (messages_body_check). Messages are catalogue keys.
 */
export const messageBodySchema = z
  .string()
  .trim()
  .min(1, { error: 'inbox.messageRequired' })
  .max(MESSAGE_MAX_LENGTH, { error: 'inbox.messageTooLong' })

export const messageFormSchema = z.object({ body: messageBodySchema })
export type MessageFormValues = z.output<typeof messageFormSchema>

// Refusals the database words (0024), as catalogue keys.
const serverErrors: Record<string, string> = {
  'You are sending messages too fast': 'inbox.tooFast',
  'Message cannot be empty': 'inbox.messageRequired',
  'Message is too long': 'inbox.messageTooLong',
  'This is your own listing': 'inbox.ownListing',
  'Listing not found': 'inbox.listingGone',
  'Conversation not found': 'inbox.conversationNotFound',
}

/** The catalogue key of a refusal the server explains, or null for any other failure. */
export function sendErrorKey(error: unknown): string | null {
  const message = error instanceof Error ? error.message : (error as { message?: unknown } | null)?.message
  return typeof message === 'string' ? (serverErrors[message] ?? null) : null
}

/** Adds the caller's message to a conversation they are part of (RLS) and returns it as stored (trimmed). */
export async function sendMessage({ conversationId, body }: { conversationId: string; body: string }): Promise<Message> {
  const { data } = await supabase
    .from('messages')
    .insert({ conversation_id: conversationId, body: messageBodySchema.parse(body) })
    .select('id, conversation_id, sender_id, body, created_at')
    .single()
    .throwOnError()
  return data
}

/** Sends a message; the thread shows it at once and the list moves it to the top. */
export function useSendMessage(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: sendMessage,
    onSuccess: (message) => {
      queryClient.setQueryData<Message[]>(messageKeys.thread(message.conversation_id), (messages) => withMessage(messages, message))
      // Not awaited: the box clears as soon as the message is stored.
      void queryClient.invalidateQueries({ queryKey: messageKeys.conversations(userId) })
    },
  })
}
