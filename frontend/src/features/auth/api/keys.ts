/** Query keys of the auth feature. */
export const authKeys = {
  all: ['auth'] as const,
  role: (userId: string) => [...authKeys.all, 'role', userId] as const,
  /** The auth server's public settings (GET /auth/v1/settings): which sign-in methods are on. */
  settings: () => [...authKeys.all, 'settings'] as const,
}
