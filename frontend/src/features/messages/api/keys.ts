/** Query keys of the messages feature (conversations and their threads). */
export const messageKeys = {
  all: ['messages'] as const,
  /** The caller's conversation_list, newest first. */
  conversations: (userId: string) => [...messageKeys.all, 'conversations', userId] as const,
  /** One conversation_list row. */
  conversation: (userId: string, id: string) => [...messageKeys.all, 'conversation', userId, id] as const,
  /** The messages of one conversation, oldest first. */
  thread: (id: string) => [...messageKeys.all, 'thread', id] as const,
}
