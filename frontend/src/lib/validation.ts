import { z } from 'zod'

/**
 * Shared zod pieces for the listing forms. Messages are catalogue keys,
 * translated where the error is shown (FieldError), so a schema is built
 * once and still speaks the user's language.
 */
export const KENYAN_PHONE = /^(?:\+?254|0)(?:7|1)\d{8}$/

/** Listing images: at most this many photos per listing. */
export const MAX_LISTING_IMAGES = 10

export const requiredText = (message: string, max = 200) =>
  z.string().trim().min(1, { error: message }).max(max, { error: 'validation.tooLong' })

export const money = (message: string) =>
  z.number({ error: message }).int({ error: message }).min(0, { error: message }).max(10_000_000_000, { error: message })

export const kenyanPhone = z
  .string()
  .trim()
  .transform((value) => value.replace(/[\s-]/g, ''))
  .refine((value) => KENYAN_PHONE.test(value), { error: 'validation.phoneInvalid' })

export const optionalDescription = z.string().trim().max(2000, { error: 'validation.tooLong' })

export const listingImages = z.array(z.string()).max(MAX_LISTING_IMAGES, { error: 'validation.imagesMax' })

/** An optional amount: an empty number input (NaN) counts as absent. */
export const optionalMoney = (message: string) =>
  z.preprocess(
    (value) => (value === '' || value === null || (typeof value === 'number' && Number.isNaN(value)) ? undefined : value),
    z.number({ error: message }).int({ error: message }).min(0, { error: message }).optional(),
  )

/** Splits a "one per line or comma" text box into a clean list. */
export function splitList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True for a UUID, the id format of every listing; anything else cannot exist. */
export function isUuid(value: string): boolean {
  return UUID.test(value)
}
