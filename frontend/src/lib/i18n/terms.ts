import type { MessageKey } from './en'
import { t } from './i18n'

/**
 * Catalogue keys of the stored listing vocabularies (spec §9): purposes,
 * conditions, property and land types, product categories, value bands and
 * land size units. The database keeps the English values; only their
 * display is translated.
 */
const termKeys: Readonly<Record<string, MessageKey>> = {
  Rent: 'property.forRent',
  Sale: 'property.forSale',
  Lease: 'land.forLease',
  New: 'product.new',
  Used: 'product.used',
  'Single Room': 'propertyType.singleRoom',
  Bedsitter: 'propertyType.bedsitter',
  'One Bedroom': 'propertyType.oneBedroom',
  'Two Bedroom': 'propertyType.twoBedroom',
  'Three Bedroom': 'propertyType.threeBedroom',
  'Four+ Bedroom': 'propertyType.fourPlusBedroom',
  'Vacation/Airbnb': 'propertyType.vacationAirbnb',
  'Office Space': 'propertyType.officeSpace',
  'Retail Space': 'propertyType.retailSpace',
  Warehouse: 'propertyType.warehouse',
  Furniture: 'category.furniture',
  Electronics: 'category.electronics',
  Kitchen: 'category.kitchen',
  Bedroom: 'category.bedroom',
  Bathroom: 'category.bathroom',
  Decor: 'category.decor',
  Lighting: 'category.lighting',
  Appliances: 'category.appliances',
  Storage: 'category.storage',
  Other: 'category.other',
  Residential: 'landType.residential',
  Commercial: 'propertyType.commercial',
  Agricultural: 'landType.agricultural',
  Industrial: 'landType.industrial',
  'Mixed Use': 'landType.mixedUse',
  Basic: 'valueRange.basic',
  Standard: 'valueRange.standard',
  Premium: 'valueRange.premium',
  'Drone Based': 'fee.droneBased',
  'Moving Based': 'fee.movingBased',
  acres: 'sizeUnit.acres',
  hectares: 'sizeUnit.hectares',
  'sq ft': 'sizeUnit.sqFt',
  'sq m': 'sizeUnit.sqM',
}

/**
 * The label of a stored vocabulary value in the current language, e.g.
 * 'Warehouse' → 'Ghala'. Values outside the vocabulary show as stored.
 * Components call it during render under useTranslation(), so they re-render
 * when the language changes.
 */
export function term(value: string | null | undefined): string {
  if (!value) return ''
  const key = termKeys[value]
  return key ? t(key) : value
}

/** Select options for a vocabulary: the stored value with its translated label. */
export function termOptions(values: readonly string[]): { value: string; label: string }[] {
  return values.map((value) => ({ value, label: term(value) }))
}

const tierKeys: Readonly<Record<string, MessageKey>> = { Low: 'fee.tierLow', Mid: 'fee.tierMid', High: 'fee.tierHigh' }

/**
 * The label of a listing-fee row (listing_fee_rates.label) in the current
 * language: a type ('Single Room', 'Drone Based') or a price tier such as
 * 'Low (0 - 5M KES)', whose band word is translated and range kept.
 */
export function feeRateLabel(label: string): string {
  const tier = /^(Low|Mid|High) (\(.*\))$/.exec(label)
  if (tier) return `${t(tierKeys[tier[1]])} ${tier[2]}`
  return term(label)
}
