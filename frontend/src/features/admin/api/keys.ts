/** Query keys of the admin panel. */
export const adminKeys = {
  all: ['admin'] as const,
  gate: (userId: string | undefined) => ['admin', 'gate', userId ?? 'none'] as const,
  mfa: (userId: string | undefined) => ['admin', 'mfa', userId ?? 'none'] as const,
  stats: () => ['admin', 'stats'] as const,
  users: (search: string, page: number) => ['admin', 'users', search, page] as const,
  usersAll: () => ['admin', 'users'] as const,
  user: (id: string) => ['admin', 'user', id] as const,
  kyc: () => ['admin', 'kyc'] as const,
  kycFile: (path: string) => ['admin', 'kyc-file', path] as const,
  listings: (section: string) => ['admin', 'listings', section] as const,
  audit: (targetId: string) => ['admin', 'audit', targetId] as const,
  disputes: () => ['admin', 'disputes'] as const,
  dispute: (id: string) => ['admin', 'dispute', id] as const,
  analytics: (days: number) => ['admin', 'analytics', days] as const,
  reports: () => ['admin', 'reports'] as const,
  contact: () => ['admin', 'contact'] as const,
}
