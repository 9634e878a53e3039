/** Query keys of the signed-in user's own P2P offers. */
export const myOfferKeys = {
  all: ['p2p-offers'] as const,
  mine: (userId: string) => [...myOfferKeys.all, 'mine', userId] as const,
  openTrades: (offerId: string) => [...myOfferKeys.all, 'open-trades', offerId] as const,
}
