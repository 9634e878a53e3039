/** Query keys of the KYC feature (the caller's own submission and its documents). */
export const kycKeys = {
  all: ['kyc'] as const,
  mine: (userId: string) => [...kycKeys.all, 'mine', userId] as const,
  file: (path: string) => [...kycKeys.all, 'file', path] as const,
}
