/**
 * Constants of the P2P exchange (marketplace-spec §5, §9), as the database
 * enforces them (sql/migrations/0011_p2p.sql, 0020_trade_trust.sql,
 * 0026_p2p_ratings.sql), and its routes.
 */

export const P2P_ACTIONS = ['buy', 'sell'] as const
export type P2pAction = (typeof P2P_ACTIONS)[number]

export const P2P_CURRENCIES = ['nestcoins', 'crystals', 'keys'] as const
export type P2pCurrency = (typeof P2P_CURRENCIES)[number]

export const PAYMENT_METHODS = ['M-Pesa', 'Bank Transfer', 'Airtel Money', 'T-Kash', 'PayPal', 'Skrill'] as const

/** Auto-cancel choices: the form's label key and the value stored ('24 hours' is stored as '1 day'). */
export const AUTO_CANCEL_DURATIONS = [
  { value: '1 hour', label: 'p2p.duration.1h' },
  { value: '6 hours', label: 'p2p.duration.6h' },
  { value: '12 hours', label: 'p2p.duration.12h' },
  { value: '1 day', label: 'p2p.duration.24h' },
  { value: '3 days', label: 'p2p.duration.3d' },
  { value: '7 days', label: 'p2p.duration.7d' },
] as const

export const OFFER_AMOUNT_MIN = 10
export const OFFER_AMOUNT_MAX = 10_000
export const OFFER_RATE_MIN = 0.01
export const OFFER_LIMIT_MIN = 1

/** The offer form's defaults (spec §9). */
export const OFFER_DEFAULTS = {
  action: 'sell',
  currency: 'nestcoins',
  amount: 100,
  rate_per_unit: 10,
  min_limit: 50,
  max_limit: 500,
  payment_methods: [] as string[],
  auto_cancel_duration: '1 day',
} as const

/** An M-Pesa transaction code: 10 uppercase letters and digits, e.g. SGK3H8PQ2X. */
export const MPESA_CODE = /^[A-Z0-9]{10}$/

/** Payment instructions, dispute reasons and rating comments: at most this long (0026 checks). */
export const P2P_TEXT_MAX = 500
/** A chat message: 1 to 2000 characters (p2p_trade_messages_body_check). */
export const P2P_MESSAGE_MAX = 2000

/** Offers the board loads per page (get_p2p_board allows up to 200). */
export const BOARD_PAGE_SIZE = 60

/** Trade statuses that still move coins. */
export const OPEN_TRADE_STATUSES = ['escrow_locked', 'paid', 'disputed'] as const

export const p2pPaths = {
  board: '/p2p',
  trades: '/p2p/trades',
  trade: (id: string) => `/p2p/trades/${id}`,
  wallet: '/wallet',
}
