import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { propertyPurposes, propertyTypes } from '@/config/listings'
import { MAX_SALE_PRICE } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'
import { kenyanPhone, listingImages, money, optionalDescription, optionalMoney, requiredText } from '@/lib/validation'

import type { Property } from './get-properties'
import { propertyKeys } from './keys'

export const createPropertySchema = z.object({
  title: requiredText('validation.titleRequired', 120),
  type: z.enum(propertyTypes, { error: 'validation.typeRequired' }),
  purpose: z.enum(propertyPurposes, { error: 'validation.purposeRequired' }),
  price: money('validation.priceInvalid'),
  deposit: optionalMoney('validation.depositInvalid'),
  location: requiredText('validation.locationRequired', 120),
  description: optionalDescription,
  contact: kenyanPhone,
  images: listingImages,
})
  // Spec §9: the sale fee tiers end at 150M KES; dearer sales have no fee.
  .refine((values) => values.purpose !== 'Sale' || values.price <= MAX_SALE_PRICE, {
    error: 'validation.salePriceTooHigh',
    path: ['price'],
    when: (payload) => createPropertyPriceReady(payload.value),
  })

function createPropertyPriceReady(value: unknown): boolean {
  const { purpose, price } = (value ?? {}) as { purpose?: unknown; price?: unknown }
  return purpose === 'Sale' && typeof price === 'number' && Number.isFinite(price)
}

export type CreatePropertyInput = z.input<typeof createPropertySchema>
export type CreatePropertyValues = z.output<typeof createPropertySchema>

/**
 * Inserts the caller's property. It starts unpaid and inactive; the
 * listing fee (publish_listing) then sends it for admin approval.
 */
export async function createProperty(values: CreatePropertyValues): Promise<Property> {
  const { data } = await supabase
    .from('properties')
    .insert({
      ...values,
      deposit: values.purpose === 'Rent' ? (values.deposit ?? null) : null,
      description: values.description || null,
    })
    .select('*')
    .single()
    .throwOnError()
  return data
}

export function useCreateProperty() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createProperty,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: propertyKeys.all }),
  })
}
