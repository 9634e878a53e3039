import { zodResolver } from '@hookform/resolvers/zod'
import { PlusIcon, XIcon } from 'lucide-react'
import { useFieldArray, useForm } from 'react-hook-form'

import { InputField, SelectField, TextareaField } from '@/components/form/fields'
import { DescriptionField, ListingForm, LocationField, PhoneField, PhotosField } from '@/components/listings/listing-form'
import { Button } from '@/components/ui/button'
import { serviceCategories } from '@/config/listings'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import type { OwnService } from '../api/get-own-service'
import { parsePricing, type ServiceProvider } from '../api/get-services'
import {
  MAX_PRICING_ENTRIES,
  saveServiceSchema,
  useSaveService,
  type SaveServiceInput,
  type SaveServiceValues,
} from '../api/save-service'

function defaultsOf(service?: OwnService): SaveServiceInput {
  return {
    name: service?.name ?? '',
    category: (service?.category as SaveServiceInput['category']) ?? 'Moving',
    location: service?.location ?? '',
    description: service?.description ?? '',
    services: service?.services.join('\n') ?? '',
    pricing: service ? parsePricing(service.pricing).map((entry) => ({ ...entry, duration: entry.duration ?? '' })) : [],
    phone: service?.phone ?? '',
    profileimage: service?.profileimage ?? '',
  }
}

type ServiceFormProps = {
  /** The service being edited, with its phone (useOwnService); a new one is created without it. */
  service?: OwnService
  onSaved(service: ServiceProvider): void
}

/** /list-service and /edit-service/:id: name, category, location, services, prices, phone, photo. */
export function ServiceForm({ service, onSaved }: ServiceFormProps) {
  const { t } = useTranslation()
  const save = useSaveService(service?.id)
  const form = useForm<SaveServiceInput, unknown, SaveServiceValues>({
    resolver: zodResolver(saveServiceSchema),
    defaultValues: defaultsOf(service),
  })
  const pricing = useFieldArray({ control: form.control, name: 'pricing' })
  const category = form.watch('category')

  return (
    <ListingForm
      form={form}
      save={save}
      onSaved={(saved) => {
        if (service) toast({ title: t('form.serviceSaved'), variant: 'success' })
        onSaved(saved)
      }}
      submitLabel={service ? t('form.saveChanges') : undefined}
      fee={service ? undefined : { kind: 'service', listing: { type: category } }}
    >
      <div className="grid gap-5 sm:grid-cols-2">
        <InputField name="name" label={t('form.serviceName')} />
        <SelectField
          name="category"
          label={t('products.categoryFilter')}
          options={serviceCategories.map((value) => ({ value, label: value === 'Drone' ? t('services.tabDrone') : t('services.tabMoving') }))}
        />
        <LocationField />
        <PhoneField name="phone" />
      </div>
      <DescriptionField />
      <TextareaField name="services" label={t('form.servicesList')} description={t('form.servicesHelp')} rows={3} />
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-2 text-sm font-medium">{t('form.pricing')}</legend>
        {pricing.fields.map((entry, index) => (
          <div key={entry.id} className="grid grid-cols-[2fr_1fr_1fr_auto] items-start gap-2">
            <InputField name={`pricing.${index}.title`} label={t('form.pricingTitleN', { n: index + 1 })} hideLabel placeholder={t('form.pricingTitle')} />
            <InputField
              name={`pricing.${index}.price`}
              label={t('form.pricingPriceN', { n: index + 1 })}
              hideLabel
              numeric
              type="number"
              min={0}
              placeholder={t('form.pricingPrice')}
            />
            <InputField name={`pricing.${index}.duration`} label={t('form.pricingDurationN', { n: index + 1 })} hideLabel placeholder={t('form.pricingDuration')} />
            <Button type="button" variant="ghost" size="icon" onClick={() => pricing.remove(index)}>
              <XIcon aria-hidden="true" />
              <span className="sr-only">{t('form.removePrice', { n: index + 1 })}</span>
            </Button>
          </div>
        ))}
        {pricing.fields.length < MAX_PRICING_ENTRIES && (
          <Button
            type="button"
            variant="outline"
            className="self-start"
            onClick={() => pricing.append({ title: '', price: Number.NaN, duration: '' })}
          >
            <PlusIcon aria-hidden="true" />
            {t('form.addPrice')}
          </Button>
        )}
      </fieldset>
      <PhotosField name="profileimage" label={t('form.profileImage')} max={1} />
    </ListingForm>
  )
}
