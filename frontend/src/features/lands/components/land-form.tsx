import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'

import { InputField, SelectField, TextareaField } from '@/components/form/fields'
import { DescriptionField, ListingForm, LocationField, MoneyField, PhotosField } from '@/components/listings/listing-form'
import { landPurposes, landSizeUnits, landTypes } from '@/config/listings'
import { useTranslation } from '@/lib/i18n/i18n'
import { termOptions } from '@/lib/i18n/terms'

import { createLandSchema, useCreateLand, type CreateLandInput, type CreateLandValues } from '../api/create-land'
import type { Land } from '../api/get-lands'

/** Step 1 of /list-land: every field of a land listing, validated, with photos. */
export function LandForm({ onCreated }: { onCreated(land: Land): void }) {
  const { t } = useTranslation()
  const create = useCreateLand()
  const form = useForm<CreateLandInput, unknown, CreateLandValues>({
    resolver: zodResolver(createLandSchema),
    defaultValues: {
      title: '',
      location: '',
      description: '',
      type: 'Residential',
      purpose: 'Sale',
      price: Number.NaN,
      size: Number.NaN,
      sizeUnit: 'acres',
      features: '',
      images: [],
    },
  })
  const [type, purpose] = form.watch(['type', 'purpose'])

  return (
    <ListingForm
      form={form}
      save={create}
      onSaved={onCreated}
      fee={{ kind: 'land', listing: { type } }}
    >
      <InputField name="title" label={t('form.title')} />
      <div className="grid gap-5 sm:grid-cols-3">
        <SelectField name="type" label={t('lands.typeLabel')} options={termOptions(landTypes)} />
        <SelectField name="purpose" label={t('lands.purposeLabel')} options={termOptions(landPurposes)} />
        <MoneyField name="price" label={purpose === 'Lease' ? t('form.rentPerMonth') : t('form.priceKes')} />
      </div>
      <div className="grid gap-5 sm:grid-cols-3">
        <LocationField />
        <InputField name="size" label={t('form.size')} numeric type="number" inputMode="decimal" step="any" min={0} />
        <SelectField name="sizeUnit" label={t('form.sizeUnit')} options={termOptions(landSizeUnits)} />
      </div>
      <DescriptionField />
      <TextareaField name="features" label={t('form.features')} description={t('form.featuresHelp')} rows={3} />
      <PhotosField />
    </ListingForm>
  )
}
