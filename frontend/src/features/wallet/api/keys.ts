/** Query keys of the wallet feature (balances, fee rates, packages). */
export const walletKeys = {
  all: ['wallet'] as const,
  balance: (userId: string) => [...walletKeys.all, 'balance', userId] as const,
  feeRates: () => [...walletKeys.all, 'fee-rates'] as const,
  packages: () => [...walletKeys.all, 'packages'] as const,
}
