import type { WalletHistoryFilters } from './get-wallet-history'

/** Query keys of the wallet feature (balances, history, listing fees, fee rates, packages, the buyer's M-Pesa number). */
export const walletKeys = {
  all: ['wallet'] as const,
  balance: (userId: string) => [...walletKeys.all, 'balance', userId] as const,
  balances: (userId: string) => [...walletKeys.all, 'balances', userId] as const,
  history: (userId: string, filters: WalletHistoryFilters) => [...walletKeys.all, 'history', userId, filters] as const,
  /** Every history page of `userId` (the prefix of history()). */
  histories: (userId: string) => [...walletKeys.all, 'history', userId] as const,
  listingFees: (userId: string) => [...walletKeys.all, 'listing-fees', userId] as const,
  feeRates: () => [...walletKeys.all, 'fee-rates'] as const,
  packages: () => [...walletKeys.all, 'packages'] as const,
  buyerPhone: (userId: string) => [...walletKeys.all, 'buyer-phone', userId] as const,
}
