import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { productCategories, productStatuses, productValueRanges } from '@/config/listings'
import { MAX_MARKET_PRICE } from '@/lib/listing-fees'
import { supabase } from '@/lib/supabase'
import { kenyanPhone, listingImages, money, optionalDescription, requiredText } from '@/lib/validation'

import type { Product } from './get-products'
import { productKeys } from './keys'

export const createProductSchema = z.object({
  name: requiredText('validation.nameRequired', 120),
  // Spec §9: the marketplace fee tiers end at 500,000 KES.
  price: money('validation.priceInvalid').max(MAX_MARKET_PRICE, { error: 'validation.marketPriceTooHigh' }),
  status: z.enum(productStatuses, { error: 'validation.statusRequired' }),
  category: z.enum(productCategories, { error: 'validation.categoryRequired' }),
  value_range: z.enum(productValueRanges),
  description: optionalDescription,
  location: requiredText('validation.locationRequired', 120),
  contact: kenyanPhone,
  images: listingImages,
})

export type CreateProductInput = z.input<typeof createProductSchema>
export type CreateProductValues = z.output<typeof createProductSchema>

/** Inserts the caller's product (unpaid, inactive; after the fee it awaits approval). */
export async function createProduct(values: CreateProductValues): Promise<Product> {
  const { data } = await supabase
    .from('products')
    .insert({ ...values, description: values.description || null })
    .select('*')
    .single()
    .throwOnError()
  return data
}

export function useCreateProduct() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createProduct,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: productKeys.all }),
  })
}
