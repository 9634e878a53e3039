import { detailPath } from '@/config/paths'

import type { Tables } from './database.types'
import type { ListingKind } from './listing-fees'

/** The listing kinds in the order search results and saved listings show them. */
export const listingKinds = ['property', 'product', 'land', 'service'] as const satisfies readonly ListingKind[]

/**
 * What a compact listing card shows, the same for every kind: search
 * results and saved listings read the four tables and map their rows here.
 * `tag` is the purpose (properties, lands), the category (products,
 * services); `price` is null for services, which have none.
 */
export type ListingSummary = {
  kind: ListingKind
  id: string
  title: string
  location: string | null
  price: number | null
  /** A rent or lease: the price is per month. */
  perMonth: boolean
  image: string | null
  tag: string | null
}

/**
 * The columns of lands a summary reads (anon may read every column of
 * lands; properties, products and services use lib/listing-columns.ts).
 */
export const landSummarySelect = 'id,title,location,description,type,purpose,price,images,is_active,createdAt'

type PropertyRow = Pick<Tables<'properties'>, 'id' | 'title' | 'location' | 'price' | 'purpose' | 'images'>
type ProductRow = Pick<Tables<'products'>, 'id' | 'name' | 'location' | 'price' | 'category' | 'images'>
type LandRow = Pick<Tables<'lands'>, 'id' | 'title' | 'location' | 'price' | 'purpose' | 'images'>
type ServiceRow = Pick<Tables<'service_providers'>, 'id' | 'name' | 'location' | 'category' | 'profileimage'>

export function propertySummary(row: PropertyRow): ListingSummary {
  const purpose = row.purpose || 'Rent'
  return {
    kind: 'property',
    id: row.id,
    title: row.title?.trim() ?? '',
    location: row.location?.trim() || null,
    price: row.price,
    perMonth: purpose === 'Rent',
    image: row.images?.[0] ?? null,
    tag: purpose,
  }
}

export function productSummary(row: ProductRow): ListingSummary {
  return {
    kind: 'product',
    id: row.id,
    title: row.name?.trim() ?? '',
    location: row.location?.trim() || null,
    price: row.price,
    perMonth: false,
    image: row.images?.[0] ?? null,
    tag: row.category || 'Other',
  }
}

export function landSummary(row: LandRow): ListingSummary {
  return {
    kind: 'land',
    id: row.id,
    title: row.title?.trim() ?? '',
    location: row.location?.trim() || null,
    price: row.price,
    perMonth: row.purpose === 'Lease',
    image: row.images?.[0] ?? null,
    tag: row.purpose,
  }
}

export function serviceSummary(row: ServiceRow): ListingSummary {
  return {
    kind: 'service',
    id: row.id,
    title: row.name?.trim() ?? '',
    location: row.location?.trim() || null,
    price: null,
    perMonth: false,
    image: row.profileimage,
    tag: row.category,
  }
}

/** The detail page of a listing of any kind. */
export function listingHref(kind: ListingKind, id: string): string {
  return detailPath[kind](id)
}
