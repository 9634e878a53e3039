import type { Tables } from './database.types'

/*
 * The columns of the listing tables a visitor may read (issue 12, "Private
 * data"; sql/migrations/0019_private_data.sql). The server withholds the
 * listing contacts from anon by column privileges: anon may select every
 * column of properties and products except `contact`, and of
 * service_providers except `phone`. A visitor's select=* is therefore refused
 * (42501), as PostgREST does, so every read a visitor can make names these
 * columns instead. Signed-in users still read every column; a detail page
 * takes its contact from get_listing_owner (lib/listing-owner.ts).
 *
 * Each list must name exactly the table's columns minus its private one;
 * the checks below fail to compile otherwise (a column added to
 * database.types.ts must be added here, and to the anon grant on the server).
 *
 * The full-text vectors (`search`, 0027) are not in database.types.ts: the
 * app filters on them (lib/search-query.ts) and never reads them.
 */

export const propertyColumns = [
  'id',
  'user_id',
  'title',
  'type',
  'purpose',
  'price',
  'price_unit',
  'location',
  'description',
  'deposit',
  'images',
  'created_at',
  'is_active',
  'payment_status',
  'paid_until',
  'pending_days',
  'pending_fee',
  'moderation_notes',
  'updated_at',
] as const

export const productColumns = [
  'id',
  'user_id',
  'name',
  'price',
  'status',
  'category',
  'description',
  'location',
  'images',
  'value_range',
  'created_at',
  'is_active',
  'payment_status',
  'paid_until',
  'pending_days',
  'pending_fee',
  'moderation_notes',
  'updated_at',
] as const

export const serviceProviderColumns = [
  'id',
  'userid',
  'name',
  'category',
  'location',
  'description',
  'services',
  'pricing',
  'reviews',
  'rating',
  'verified',
  'profileimage',
  'created_at',
  'is_active',
  'payment_status',
  'paid_until',
  'pending_days',
  'pending_fee',
  'moderation_notes',
  'updated_at',
] as const

// Lands have no private column; naming them keeps the full-text vector
// (`search`, a filter only) out of every response.
export const landColumns = [
  'id',
  'userid',
  'title',
  'location',
  'description',
  'type',
  'purpose',
  'price',
  'size',
  'sizeUnit',
  'features',
  'images',
  'is_active',
  'payment_status',
  'paid_until',
  'pending_days',
  'pending_fee',
  'moderation_notes',
  'createdAt',
  'updated_at',
] as const

/** The columns joined with commas, kept as a string literal type so supabase-js infers the row type from it. */
type Joined<Columns extends readonly string[]> = Columns extends readonly [infer Only extends string]
  ? Only
  : Columns extends readonly [infer First extends string, ...infer Rest extends readonly string[]]
    ? `${First},${Joined<Rest>}`
    : never

function joined<const Columns extends readonly string[]>(columns: Columns): Joined<Columns> {
  return columns.join(',') as Joined<Columns>
}

/** select() argument for the public columns of properties (no `contact`). */
export const propertySelect = joined(propertyColumns)
/** select() argument for the public columns of products (no `contact`). */
export const productSelect = joined(productColumns)
/** select() argument for the public columns of service_providers (no `phone`). */
export const serviceProviderSelect = joined(serviceProviderColumns)
/** select() argument for every column of lands but the search vector. */
export const landSelect = joined(landColumns)

/** true when the union of listed names equals the union of wanted names; anything else is false. */
type SameNames<Listed, Wanted> = [Listed] extends [Wanted] ? ([Wanted] extends [Listed] ? true : false) : false

// Compile-time checks: a missing, extra or private column makes one of these false.
true satisfies SameNames<(typeof propertyColumns)[number], keyof Omit<Tables<'properties'>, 'contact'>>
true satisfies SameNames<(typeof productColumns)[number], keyof Omit<Tables<'products'>, 'contact'>>
true satisfies SameNames<(typeof serviceProviderColumns)[number], keyof Omit<Tables<'service_providers'>, 'phone'>>
true satisfies SameNames<(typeof landColumns)[number], keyof Tables<'lands'>>
