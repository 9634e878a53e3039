import { useMutation, useQueryClient } from '@tanstack/react-query'

import type { ListingKind } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'

import { messageKeys } from './keys'
import { messageBodySchema } from './send-message'

/**
 * Sends the caller's message about a listing to its owner (start_conversation):
 * opens the conversation, or continues the one they already have about it,
 * and returns its id.
 */
export async function startConversation({ kind, listingId, body }: { kind: ListingKind; listingId: string; body: string }): Promise<string> {
  const { data } = await supabase
    .rpc('start_conversation', { p_kind: kind, p_listing_id: listingId, p_body: messageBodySchema.parse(body) })
    .throwOnError()
  if (typeof data !== 'string' || !data) throw new Error('start_conversation returned no conversation')
  return data
}

export function useStartConversation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: startConversation,
    onSuccess: (id) => queryClient.invalidateQueries({ queryKey: messageKeys.all }).then(() => id),
  })
}
