/** Query keys of the notifications feature (the bell). */
export const notificationKeys = {
  all: ['notifications'] as const,
  /** The newest notifications of the user. */
  latest: (userId: string) => [...notificationKeys.all, 'latest', userId] as const,
  /** How many of the user's notifications are unread. */
  unread: (userId: string) => [...notificationKeys.all, 'unread', userId] as const,
}
