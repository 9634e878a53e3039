import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'

import { serviceCategories } from '@/config/listings'
import { supabase } from '@/lib/supabase'
import { kenyanPhone, optionalDescription, requiredText, splitList } from '@/lib/validation'

import type { ServiceProvider } from './get-services'
import { serviceKeys } from './keys'

/** At most this many price entries per provider. */
export const MAX_PRICING_ENTRIES = 10

const pricingEntry = z.object({
  title: requiredText('validation.pricingTitleRequired', 80),
  price: z.number({ error: 'validation.priceInvalid' }).int({ error: 'validation.priceInvalid' }).min(0, { error: 'validation.priceInvalid' }),
  duration: z.string().trim().max(40, { error: 'validation.tooLong' }),
})

export const saveServiceSchema = z.object({
  name: requiredText('validation.nameRequired', 120),
  category: z.enum(serviceCategories, { error: 'validation.categoryRequired' }),
  location: requiredText('validation.locationRequired', 120),
  description: optionalDescription,
  /** One service per line or comma. */
  services: z
    .string()
    .max(1000, { error: 'validation.tooLong' })
    .refine((text) => splitList(text).length > 0, { error: 'validation.servicesRequired' }),
  pricing: z.array(pricingEntry).max(MAX_PRICING_ENTRIES),
  phone: kenyanPhone,
  profileimage: z.string(),
})

export type SaveServiceInput = z.input<typeof saveServiceSchema>
export type SaveServiceValues = z.output<typeof saveServiceSchema>

function toRow(values: SaveServiceValues) {
  return {
    ...values,
    description: values.description || null,
    services: splitList(values.services),
    pricing: values.pricing.map(({ title, price, duration }) => ({ title, price, duration })),
    profileimage: values.profileimage || null,
  }
}

/** Inserts the caller's service (unpaid, inactive until the fee is paid). */
export async function createService(values: SaveServiceValues): Promise<ServiceProvider> {
  const { data } = await supabase.from('service_providers').insert(toRow(values)).select('*').single().throwOnError()
  return data
}

/** Updates one of the caller's services (RLS limits it to the owner). */
export async function updateService({ id, values }: { id: string; values: SaveServiceValues }): Promise<ServiceProvider> {
  const { data } = await supabase.from('service_providers').update(toRow(values)).eq('id', id).select('*').single().throwOnError()
  return data
}

/** Saves the form: updates `id` when given, else creates a new service. */
export function useSaveService(id?: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (values: SaveServiceValues) => (id ? updateService({ id, values }) : createService(values)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: serviceKeys.all }),
  })
}
