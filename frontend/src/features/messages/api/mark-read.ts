import { useMutation, useQueryClient } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import type { ConversationSummary } from './get-conversations'
import { messageKeys } from './keys'

/** Marks a conversation of the caller read up to now (and its message notification). */
export async function markConversationRead(conversationId: string): Promise<void> {
  await supabase.rpc('mark_conversation_read', { p_conversation_id: conversationId }).throwOnError()
}

/** Marks a conversation read; its unread badge clears at once, then the list is re-read. */
export function useMarkConversationRead(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: markConversationRead,
    onSuccess: (_result, conversationId) => {
      queryClient.setQueryData<ConversationSummary[]>(messageKeys.conversations(userId), (rows) =>
        rows?.map((row) => (row.id === conversationId ? { ...row, unread_count: 0 } : row)),
      )
      return queryClient.invalidateQueries({ queryKey: messageKeys.conversations(userId) })
    },
  })
}
