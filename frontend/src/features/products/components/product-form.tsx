import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'

import { InputField, SelectField } from '@/components/form/fields'
import { DescriptionField, ListingForm, LocationField, MoneyField, PhoneField, PhotosField } from '@/components/listings/listing-form'
import { productCategories, productStatuses, productValueRanges } from '@/config/listings'
import { useTranslation } from '@/lib/i18n/i18n'
import { termOptions } from '@/lib/i18n/terms'

import { createProductSchema, useCreateProduct, type CreateProductInput, type CreateProductValues } from '../api/create-product'
import type { Product } from '../api/get-products'

/** Step 1 of /list-product: every field of a product, validated, with photos. */
export function ProductForm({ onCreated }: { onCreated(product: Product): void }) {
  const { t } = useTranslation()
  const create = useCreateProduct()
  const form = useForm<CreateProductInput, unknown, CreateProductValues>({
    resolver: zodResolver(createProductSchema),
    defaultValues: {
      name: '',
      price: Number.NaN,
      status: 'Used',
      category: 'Furniture',
      value_range: 'Basic',
      description: '',
      location: '',
      contact: '',
      images: [],
    },
  })
  const price = form.watch('price')

  return (
    <ListingForm
      form={form}
      save={create}
      onSaved={onCreated}
      fee={{ kind: 'product', listing: { price } }}
    >
      <InputField name="name" label={t('form.productName')} />
      <div className="grid gap-5 sm:grid-cols-3">
        <SelectField name="category" label={t('products.categoryFilter')} options={termOptions(productCategories)} />
        <SelectField name="status" label={t('products.statusFilter')} options={termOptions(productStatuses)} />
        <MoneyField name="price" label={t('form.priceKes')} />
      </div>
      <div className="grid gap-5 sm:grid-cols-3">
        <LocationField />
        <PhoneField name="contact" />
        <SelectField name="value_range" label={t('form.valueRange')} options={termOptions(productValueRanges)} />
      </div>
      <DescriptionField />
      <PhotosField />
    </ListingForm>
  )
}
