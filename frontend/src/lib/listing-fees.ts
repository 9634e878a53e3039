/**
 * Nestcoins per day of listing (spec §9). The server's listing_fee_rates
 * table is the source of truth; this copy is the static fallback of the
 * pricing page and the offline estimate of the forms. Same rules as the SQL
 * function listing_fee_per_day.
 */
export type FeeCategory = 'sale' | 'rent' | 'services' | 'market' | 'land'
export type ListingKind = 'property' | 'land' | 'product' | 'service'

export type FeeRate = {
  category: FeeCategory
  label: string
  /** Exact type matched (rent, services, land); null for price tiers. */
  match_value: string | null
  min_price: number | null
  max_price: number | null
  per_day: number
}

const tier = (category: FeeCategory, label: string, min: number, max: number | null, perDay: number): FeeRate => ({
  category,
  label,
  match_value: null,
  min_price: min,
  max_price: max,
  per_day: perDay,
})
const typed = (category: FeeCategory, label: string, match: string, perDay: number): FeeRate => ({
  category,
  label,
  match_value: match,
  min_price: null,
  max_price: null,
  per_day: perDay,
})

/**
 * The highest prices the fee table covers (spec §9: 'High (25M - 150M KES)'
 * for sales, 'High (100,001 - 500,000 KES)' for the marketplace). Dearer
 * listings have no tier, so the forms refuse them, as the server does
 * (sql/migrations/0018_fee_tier_caps.sql: publish_listing answers 'No
 * listing fee applies to this listing').
 */
export const MAX_SALE_PRICE = 150_000_000
export const MAX_MARKET_PRICE = 500_000

export const feeCategories: readonly FeeCategory[] = ['sale', 'rent', 'services', 'market', 'land']

export const staticFeeRates: readonly FeeRate[] = [
  tier('sale', 'Low (0 - 5M KES)', 0, 5_000_000, 75),
  tier('sale', 'Mid (5M - 25M KES)', 5_000_001, 25_000_000, 150),
  tier('sale', 'High (25M - 150M KES)', 25_000_001, MAX_SALE_PRICE, 225),
  typed('rent', 'Single Room', 'Single Room', 28),
  typed('rent', 'Bedsitter', 'Bedsitter', 33),
  typed('rent', 'One Bedroom', 'One Bedroom', 45),
  typed('rent', 'Two Bedroom', 'Two Bedroom', 55),
  typed('rent', 'Three Bedroom', 'Three Bedroom', 65),
  typed('rent', 'Four+ Bedroom', 'Four+ Bedroom', 75),
  typed('rent', 'Vacation/Airbnb', 'Vacation/Airbnb', 75),
  typed('rent', 'Office Space', 'Office Space', 85),
  typed('rent', 'Retail Space', 'Retail Space', 75),
  typed('rent', 'Warehouse', 'Warehouse', 100),
  typed('services', 'Drone Based', 'Drone', 40),
  typed('services', 'Moving Based', 'Moving', 35),
  tier('market', 'Low (0 - 10,000 KES)', 0, 10_000, 18),
  tier('market', 'Mid (10,001 - 100,000 KES)', 10_001, 100_000, 33),
  tier('market', 'High (100,001 - 500,000 KES)', 100_001, MAX_MARKET_PRICE, 45),
  typed('land', 'Residential', 'Residential', 60),
  typed('land', 'Commercial', 'Commercial', 90),
  typed('land', 'Agricultural', 'Agricultural', 45),
  typed('land', 'Industrial', 'Industrial', 105),
  typed('land', 'Mixed Use', 'Mixed Use', 90),
]

/** The server accepts at most 365 days per payment (publish_listing). */
export const MAX_LISTING_DAYS = 365

/** The fee rates of one category, in table order. */
export function ratesOf(rates: readonly FeeRate[], category: FeeCategory): FeeRate[] {
  return rates.filter((rate) => rate.category === category)
}

function inTier(rate: FeeRate, price: number): boolean {
  return rate.min_price !== null && price >= rate.min_price && (rate.max_price === null || price <= rate.max_price)
}

/** The price cap of a listing's fee tiers (sales and products), or null when its fee does not depend on the price. */
export function maxListingPrice(kind: ListingKind, purpose?: string | null): number | null {
  if (kind === 'property' && purpose === 'Sale') return MAX_SALE_PRICE
  if (kind === 'product') return MAX_MARKET_PRICE
  return null
}

/** Whether a listing's price lies above the highest tier of the fee table. */
export function isPriceAboveCap(
  kind: ListingKind,
  listing: { purpose?: string | null; price?: number | null },
): boolean {
  const cap = maxListingPrice(kind, listing.purpose)
  return cap !== null && typeof listing.price === 'number' && listing.price > cap
}

/**
 * Per-day Nestcoins for a listing, or null when no rate applies (also for a
 * price above the table's cap, see {@link MAX_SALE_PRICE}): property
 * rentals by type, sales by price tier; products by price tier; services by
 * category (Drone | Moving); land by type. The highest matching rate wins.
 */
export function perDayFee(
  rates: readonly FeeRate[],
  kind: ListingKind,
  listing: { type?: string | null; purpose?: string | null; price?: number | null },
): number | null {
  const price = listing.price ?? 0
  if (isPriceAboveCap(kind, listing)) return null
  const matches = rates.filter((rate) => {
    switch (kind) {
      case 'property':
        return listing.purpose === 'Sale'
          ? rate.category === 'sale' && inTier(rate, price)
          : rate.category === 'rent' && rate.match_value === listing.type
      case 'product':
        return rate.category === 'market' && inTier(rate, price)
      case 'service':
        return rate.category === 'services' && rate.match_value === listing.type
      case 'land':
        return rate.category === 'land' && rate.match_value === listing.type
    }
  })
  if (!matches.length) return null
  return Math.max(...matches.map((rate) => rate.per_day))
}

/**
 * The calculator's days rule (spec §5): a whole number of at least 1;
 * anything non-numeric becomes 1. Capped at the server's 365-day limit.
 */
export function parseDays(input: string | number): number {
  const value = typeof input === 'number' ? input : Number.parseInt(String(input).trim(), 10)
  if (!Number.isFinite(value) || value < 1) return 1
  return Math.min(Math.floor(value), MAX_LISTING_DAYS)
}

export type ListingCost = { perDay: number; days: number; total: number; canAfford: boolean }

/** total = per-day cost × days; listing is allowed only when the balance covers the total. */
export function listingCost(perDay: number, days: number, balance: number): ListingCost {
  const total = perDay * days
  return { perDay, days, total, canAfford: balance >= total }
}
