import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { landPurposes, landSizeUnits, landTypes } from '@/config/listings'
import { supabase } from '@/lib/supabase'
import { listingImages, money, optionalDescription, requiredText, splitList } from '@/lib/validation'

import type { Land } from './get-lands'
import { landKeys } from './keys'

export const createLandSchema = z.object({
  title: requiredText('validation.titleRequired', 120),
  location: requiredText('validation.locationRequired', 120),
  description: optionalDescription,
  type: z.enum(landTypes, { error: 'validation.typeRequired' }),
  purpose: z.enum(landPurposes, { error: 'validation.purposeRequired' }),
  price: money('validation.priceInvalid'),
  size: z.number({ error: 'validation.sizeInvalid' }).positive({ error: 'validation.sizeInvalid' }),
  sizeUnit: z.enum(landSizeUnits),
  /** One feature per line or comma. */
  features: z.string().max(1000, { error: 'validation.tooLong' }),
  images: listingImages,
})

export type CreateLandInput = z.input<typeof createLandSchema>
export type CreateLandValues = z.output<typeof createLandSchema>

/** Inserts the caller's land (unpaid, inactive until the fee is paid). */
export async function createLand(values: CreateLandValues): Promise<Land> {
  const { data } = await supabase
    .from('lands')
    .insert({ ...values, description: values.description || null, features: splitList(values.features) })
    .select('*')
    .single()
    .throwOnError()
  return data
}

export function useCreateLand() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createLand,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: landKeys.all }),
  })
}
