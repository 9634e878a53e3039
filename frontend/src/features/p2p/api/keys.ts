import type { BoardQuery } from './get-board'

/** Query keys of the P2P feature. */
export const p2pKeys = {
  all: ['p2p'] as const,
  boards: () => [...p2pKeys.all, 'board'] as const,
  board: (query: BoardQuery) => [...p2pKeys.boards(), query] as const,
  balances: () => [...p2pKeys.all, 'balance'] as const,
  balance: (userId: string, currency: string) => [...p2pKeys.balances(), userId, currency] as const,
  trades: () => [...p2pKeys.all, 'trade'] as const,
  trade: (id: string) => [...p2pKeys.trades(), id] as const,
  tradeEvents: (id: string) => [...p2pKeys.trade(id), 'events'] as const,
  tradeMessages: (id: string) => [...p2pKeys.trade(id), 'messages'] as const,
  tradeRatings: (id: string) => [...p2pKeys.trade(id), 'ratings'] as const,
  trader: (userId: string) => [...p2pKeys.all, 'trader', userId] as const,
  myTrades: (userId: string) => [...p2pKeys.all, 'my-trades', userId] as const,
}
