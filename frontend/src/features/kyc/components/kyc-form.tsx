import '@/lib/i18n/account'
import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect, useState } from 'react'
import { FormProvider, useForm } from 'react-hook-form'

import { InputField, SelectField, TextareaField } from '@/components/form/fields'
import { Button } from '@/components/ui/button'
import { kycIdTypes, kycSingleSidedTypes, type KycIdType } from '@/config/account'
import { toast } from '@/hooks/use-toast'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

import type { Kyc } from '../api/get-kyc'
import { kycSchema, useSubmitKyc, type KycInput, type KycValues } from '../api/submit-kyc'
import { KycDocumentField } from './kyc-document'
import { useIdTypeLabel } from './kyc-state'

const idNumberHints: Record<KycIdType, MessageKey> = {
  'National ID': 'kyc.hintNationalId',
  Passport: 'kyc.hintPassport',
  'Alien ID': 'kyc.hintAlienId',
  'Maisha Namba': 'kyc.hintMaisha',
}

function isIdType(value: string | undefined): value is KycIdType {
  return (kycIdTypes as readonly string[]).includes(value ?? '')
}

function defaultsOf(existing: Kyc | null): KycInput {
  const known = isIdType(existing?.id_type)
  return {
    id_type: known ? (existing?.id_type as KycIdType) : 'National ID',
    // A number of a document type no longer offered would not fit the new type's format.
    id_number: known ? (existing?.id_number ?? '') : '',
    physical_address: existing?.physical_address ?? '',
    photo_url: existing?.photo_url ?? '',
    id_document_front_url: existing?.id_document_front_url ?? '',
    id_document_back_url: existing?.id_document_back_url ?? '',
  }
}

/**
 * The identity (KYC) form: document type and number (checked against the
 * type's format), physical address, a selfie and the document's sides,
 * uploaded to the private `kyc` bucket as they are picked. With `existing`
 * (a rejected submission) it resubmits, starting from what was sent.
 */
export function KycForm({
  userId,
  existing,
  onSubmitted,
  onCancel,
}: {
  userId: string
  existing: Kyc | null
  onSubmitted(): void
  onCancel?(): void
}) {
  const { t } = useTranslation()
  const idTypeLabel = useIdTypeLabel()
  const submit = useSubmitKyc()
  const [uploads, setUploads] = useState(0)
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<KycInput, unknown, KycValues>({ resolver: zodResolver(kycSchema), defaultValues: defaultsOf(existing) })
  const idType = form.watch('id_type')
  const { isSubmitted } = form.formState

  // A new document type changes which number and sides are valid.
  useEffect(() => {
    if (isSubmitted) void form.trigger(['id_number', 'id_document_back_url'])
  }, [form, idType, isSubmitted])

  const onBusyChange = (busy: boolean) => setUploads((count) => Math.max(0, count + (busy ? 1 : -1)))

  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null)
    // mutateAsync, not mutate's callbacks: the saved submission replaces this
    // form on screen (the status is shown instead), and callbacks given to
    // mutate() are dropped once the form has unmounted.
    try {
      await submit.mutateAsync({ userId, existingId: existing?.id ?? null, values })
    } catch (error) {
      setFailure((error instanceof Error && error.message) || t('kyc.submitFailed'))
      return
    }
    toast({ title: t('kyc.submitted'), variant: 'success' })
    onSubmitted()
  })

  const singleSided = isIdType(idType) && kycSingleSidedTypes.includes(idType)

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-5">
        <div className="grid gap-5 sm:grid-cols-2">
          <SelectField
            name="id_type"
            label={t('kyc.idType')}
            options={kycIdTypes.map((type) => ({ value: type, label: idTypeLabel(type) }))}
          />
          <InputField
            name="id_number"
            label={t('kyc.idNumber')}
            autoComplete="off"
            spellCheck={false}
            description={isIdType(idType) ? t(idNumberHints[idType]) : undefined}
          />
        </div>
        <TextareaField
          name="physical_address"
          label={t('kyc.address')}
          placeholder={t('kyc.addressPlaceholder')}
          rows={2}
          autoComplete="street-address"
        />
        <div className="grid gap-5 sm:grid-cols-3">
          <KycDocumentField
            name="photo_url"
            slot="selfie"
            label={t('kyc.selfie')}
            description={t('kyc.selfieHelp')}
            userId={userId}
            onBusyChange={onBusyChange}
          />
          <KycDocumentField
            name="id_document_front_url"
            slot="id-front"
            label={t('kyc.front')}
            description={t('kyc.frontHelp')}
            userId={userId}
            onBusyChange={onBusyChange}
          />
          <KycDocumentField
            name="id_document_back_url"
            slot="id-back"
            label={singleSided ? t('kyc.backOptional') : t('kyc.back')}
            description={t('kyc.backHelp')}
            userId={userId}
            onBusyChange={onBusyChange}
          />
        </div>
        <p className="text-sm text-muted-foreground">{t('kyc.filesHelp')}</p>
        {failure && (
          <p role="alert" className="text-sm text-destructive">
            {failure}
          </p>
        )}
        <div className="flex flex-wrap gap-3">
          <Button type="submit" disabled={submit.isPending || uploads > 0}>
            {submit.isPending ? t('kyc.submitting') : existing ? t('kyc.resubmit') : t('kyc.submit')}
          </Button>
          {onCancel && (
            <Button type="button" variant="outline" onClick={onCancel}>
              {t('kyc.cancel')}
            </Button>
          )}
        </div>
      </form>
    </FormProvider>
  )
}
