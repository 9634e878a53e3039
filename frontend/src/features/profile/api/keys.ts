/** Query keys of the profile feature (the user's own profile and contact verification). */
export const profileKeys = {
  all: ['profile'] as const,
  detail: (userId: string) => [...profileKeys.all, 'detail', userId] as const,
  verifications: (userId: string) => [...profileKeys.all, 'verifications', userId] as const,
}
