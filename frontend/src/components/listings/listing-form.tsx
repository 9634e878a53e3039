import { CoinsIcon } from 'lucide-react'
import { createContext, useContext, useId, useState, type ReactNode } from 'react'
import { Controller, FormProvider, get, useFormContext, type FieldValues, type UseFormReturn } from 'react-hook-form'

import { InputField, TextareaField } from '@/components/form/fields'
import { Button } from '@/components/ui/button'
import { Field, FieldError } from '@/components/ui/field'
import { useAuth } from '@/lib/auth'
import { useTranslation } from '@/lib/i18n/i18n'
import { isPriceAboveCap, perDayFee, staticFeeRates, type ListingKind } from '@/lib/listing-fees'
import { ACCEPTED_IMAGE_TYPES, discardListingImage, uploadListingImage } from '@/lib/upload-image'

import { PhotoUpload } from './photo-upload'

/** The part of a TanStack mutation the form uses to save. */
export type SaveMutation<TValues, TResult> = {
  mutate(values: TValues, callbacks: { onSuccess(result: TResult): void; onError(error: Error): void }): void
  isPending: boolean
}

/** The fields a listing's fee depends on (spec §9). */
export type FeeFields = { type?: string | null; purpose?: string | null; price?: number | null }

// Photo fields report uploads in flight; the form waits for them before saving.
const UploadBusyContext = createContext<(busy: boolean) => void>(() => {})

type ListingFormProps<TInput extends FieldValues, TValues, TResult> = {
  form: UseFormReturn<TInput, unknown, TValues>
  save: SaveMutation<TValues, TResult>
  onSaved(result: TResult): void
  /** The submit button's text; 'Save and continue to payment' by default. */
  submitLabel?: string
  /** Shows the per-day fee of the listing as filled in so far. */
  fee?: { kind: ListingKind; listing: FeeFields }
  children: ReactNode
}

/**
 * The frame of every listing form: the fields (bound through FormProvider),
 * the fee estimate, a save failure shown above the submit button, which
 * waits for photo uploads and for the save itself.
 */
export function ListingForm<TInput extends FieldValues, TValues, TResult>({
  form,
  save,
  onSaved,
  submitLabel,
  fee,
  children,
}: ListingFormProps<TInput, TValues, TResult>) {
  const { t } = useTranslation()
  const [uploading, setUploading] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    save.mutate(values, {
      onSuccess: onSaved,
      onError: (error) => setFailure(error.message || t('form.saveFailed')),
    })
  })

  return (
    <FormProvider {...form}>
      <UploadBusyContext.Provider value={setUploading}>
        <form onSubmit={onSubmit} noValidate className="flex flex-col gap-5">
          {children}
          {fee && <FeeEstimate kind={fee.kind} listing={fee.listing} />}
          {failure && (
            <p role="alert" className="text-sm text-destructive">
              {failure}
            </p>
          )}
          <Button type="submit" disabled={save.isPending || uploading} className="self-start">
            {save.isPending ? t('form.saving') : (submitLabel ?? t('form.continueToPayment'))}
          </Button>
        </form>
      </UploadBusyContext.Provider>
    </FormProvider>
  )
}

/**
 * The per-day Nestcoin fee from the spec's table for the listing as filled
 * in so far; the days are chosen, and the server's rate charged, at payment.
 */
export function FeeEstimate({ kind, listing }: { kind: ListingKind; listing: FeeFields }) {
  const { t } = useTranslation()
  // No price yet matches no price tier (NaN), while types still match.
  const price = typeof listing.price === 'number' && Number.isFinite(listing.price) ? listing.price : Number.NaN
  const perDay = perDayFee(staticFeeRates, kind, { ...listing, price })
  const aboveCap = isPriceAboveCap(kind, { ...listing, price })
  return (
    <p aria-live="polite" className="flex items-center gap-2 rounded-lg bg-muted p-3 text-sm">
      <CoinsIcon className="size-4 shrink-0 text-primary" aria-hidden="true" />
      {aboveCap
        ? t(kind === 'product' ? 'validation.marketPriceTooHigh' : 'validation.salePriceTooHigh')
        : perDay === null
          ? t('form.feeNeedsPrice')
          : t('form.feeEstimate', { perDay })}
    </p>
  )
}

/**
 * The photos of a listing (or, with max 1, one profile photo), uploaded to
 * the `images` bucket as they are picked; the form keeps their paths.
 */
export function PhotosField({ name = 'images', label, max }: { name?: string; label?: string; max?: number }) {
  const { t } = useTranslation()
  const { control, formState } = useFormContext()
  const { user } = useAuth()
  const setUploading = useContext(UploadBusyContext)
  const labelId = useId()
  const single = max === 1

  const upload = (file: File, onStage: Parameters<typeof uploadListingImage>[2]) => {
    if (!user) return Promise.reject(new Error(t('form.signInToUpload')))
    return uploadListingImage(file, user.id, onStage)
  }

  return (
    <Field aria-labelledby={labelId}>
      <span id={labelId} className="text-sm font-medium">
        {label ?? t('detail.photos')}
      </span>
      <Controller
        control={control}
        name={name}
        render={({ field }) => (
          <PhotoUpload
            value={single ? (field.value ? [field.value as string] : []) : ((field.value as string[] | undefined) ?? [])}
            onChange={(paths) => field.onChange(single ? (paths[0] ?? '') : paths)}
            upload={upload}
            accept={ACCEPTED_IMAGE_TYPES}
            max={max}
            onBusyChange={setUploading}
            onDiscard={(path) => void discardListingImage(path).catch(() => undefined)}
          />
        )}
      />
      <FieldError error={get(formState.errors, name)} />
    </Field>
  )
}

/** A listing's location (free text, e.g. 'Kilimani, Nairobi'). */
export function LocationField() {
  const { t } = useTranslation()
  return <InputField name="location" label={t('properties.locationFilter')} placeholder={t('properties.locationPlaceholder')} />
}

/** The owner's Kenyan phone number, revealed to signed-in visitors. */
export function PhoneField({ name }: { name: string }) {
  const { t } = useTranslation()
  return <InputField name={name} label={t('form.contactPhone')} type="tel" autoComplete="tel" placeholder="0712 345 678" />
}

/** A whole amount of KES. */
export function MoneyField({ name, label }: { name: string; label: string }) {
  return <InputField name={name} label={label} numeric type="number" inputMode="numeric" min={0} />
}

/** A listing's free-text description. */
export function DescriptionField() {
  const { t } = useTranslation()
  return <TextareaField name="description" label={t('detail.description')} rows={5} />
}
