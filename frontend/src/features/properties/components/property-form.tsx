import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'

import { InputField, SelectField } from '@/components/form/fields'
import { DescriptionField, ListingForm, LocationField, MoneyField, PhoneField, PhotosField } from '@/components/listings/listing-form'
import { propertyPurposes, propertyTypes } from '@/config/listings'
import { useTranslation } from '@/lib/i18n/i18n'
import { termOptions } from '@/lib/i18n/terms'

import {
  createPropertySchema,
  useCreateProperty,
  type CreatePropertyInput,
  type CreatePropertyValues,
} from '../api/create-property'
import type { Property } from '../api/get-properties'

/** Step 1 of /list-property: every field of a property, validated, with photos. */
export function PropertyForm({ onCreated }: { onCreated(property: Property): void }) {
  const { t } = useTranslation()
  const create = useCreateProperty()
  const form = useForm<CreatePropertyInput, unknown, CreatePropertyValues>({
    resolver: zodResolver(createPropertySchema),
    defaultValues: {
      title: '',
      type: 'Single Room',
      purpose: 'Rent',
      price: Number.NaN,
      deposit: undefined,
      location: '',
      description: '',
      contact: '',
      images: [],
    },
  })
  const [type, purpose, price] = form.watch(['type', 'purpose', 'price'])
  const isRent = purpose === 'Rent'

  return (
    <ListingForm
      form={form}
      save={create}
      onSaved={onCreated}
      fee={{ kind: 'property', listing: { type, purpose, price } }}
    >
      <InputField name="title" label={t('form.title')} />
      <div className="grid gap-5 sm:grid-cols-2">
        <SelectField name="type" label={t('properties.typeFilter')} options={termOptions(propertyTypes)} />
        <SelectField name="purpose" label={t('properties.purposeFilter')} options={termOptions(propertyPurposes)} />
        <MoneyField name="price" label={isRent ? t('form.rentPerMonth') : t('form.priceKes')} />
        {isRent && <MoneyField name="deposit" label={t('form.depositKes')} />}
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <LocationField />
        <PhoneField name="contact" />
      </div>
      <DescriptionField />
      <PhotosField />
    </ListingForm>
  )
}
