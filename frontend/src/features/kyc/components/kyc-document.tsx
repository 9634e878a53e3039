import '@/lib/i18n/account'
import { FileTextIcon, ImageOffIcon, UploadIcon } from 'lucide-react'
import { useId } from 'react'
import { Controller, get, useFormContext } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { FieldDescription, FieldError } from '@/components/ui/field'
import { Spinner } from '@/components/ui/spinner'
import { KYC_FILE_TYPES } from '@/config/account'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import { isPdfPath, KycFileProblem, useKycFileUrl, useUploadKycFile, type KycDocumentSlot } from '../api/kyc-files'

/**
 * A document of the private `kyc` bucket through a short-lived signed link:
 * a picture, or for a PDF a link that opens it.
 */
export function KycDocumentPreview({ path, label }: { path: string | null | undefined; label: string }) {
  const { t } = useTranslation()
  const url = useKycFileUrl(path)
  const frame = 'flex aspect-[4/3] w-full items-center justify-center overflow-hidden rounded-md border bg-muted'

  if (!path) {
    return (
      <div className={frame}>
        <span className="text-sm text-muted-foreground">{t('kyc.noDocument')}</span>
      </div>
    )
  }
  if (url.isPending) {
    return (
      <div className={frame}>
        <Spinner label={t('kyc.loadingDocument')} />
      </div>
    )
  }
  if (url.isError) {
    return (
      <div className={frame}>
        <span className="flex flex-col items-center gap-1 text-sm text-muted-foreground">
          <ImageOffIcon className="size-6" aria-hidden="true" />
          {t('kyc.documentFailed')}
        </span>
      </div>
    )
  }
  if (isPdfPath(path)) {
    return (
      <a href={url.data} target="_blank" rel="noreferrer" className={`${frame} gap-2 text-sm font-medium text-primary hover:underline`}>
        <FileTextIcon className="size-6" aria-hidden="true" />
        {t('kyc.openDocument', { name: label })}
      </a>
    )
  }
  return (
    <div className={frame}>
      <img src={url.data} alt={label} className="size-full object-cover" />
    </div>
  )
}

/**
 * One document of the KYC form, bound to the surrounding form: picks a
 * file, uploads it to the caller's folder of the `kyc` bucket and keeps its
 * path; shows what is stored now.
 */
export function KycDocumentField({
  name,
  label,
  description,
  slot,
  userId,
  onBusyChange,
}: {
  name: 'photo_url' | 'id_document_front_url' | 'id_document_back_url'
  label: string
  description?: string
  slot: KycDocumentSlot
  userId: string
  onBusyChange(busy: boolean): void
}) {
  const { t } = useTranslation()
  const inputId = useId()
  const { control, formState } = useFormContext()
  const upload = useUploadKycFile()
  const error = get(formState.errors, name) as { message?: string } | undefined

  return (
    <div className="flex flex-col gap-2">
      <span className="text-sm font-medium">{label}</span>
      <Controller
        control={control}
        name={name}
        render={({ field }) => {
          const onFile = (file: File | undefined) => {
            if (!file) return
            onBusyChange(true)
            upload.mutate(
              { userId, slot, file },
              {
                onSuccess: (path) => field.onChange(path),
                onError: (failure) =>
                  toast({
                    title: failure instanceof KycFileProblem ? t(failure.key) : t('kyc.uploadFailed', { name: file.name }),
                    description: failure instanceof KycFileProblem ? undefined : failure.message || undefined,
                    variant: 'destructive',
                  }),
                onSettled: () => onBusyChange(false),
              },
            )
          }
          const value = typeof field.value === 'string' ? field.value : ''
          return (
            <div className="flex flex-col gap-2">
              <KycDocumentPreview path={value} label={label} />
              <div className="flex flex-wrap items-center gap-2">
                <Button asChild variant="outline" size="sm" disabled={upload.isPending}>
                  <label htmlFor={inputId} className="cursor-pointer">
                    <UploadIcon aria-hidden="true" />
                    {upload.isPending ? t('kyc.uploading') : value ? t('kyc.replaceFile') : t('kyc.chooseFile')}
                  </label>
                </Button>
                <input
                  id={inputId}
                  type="file"
                  accept={KYC_FILE_TYPES.join(',')}
                  className="sr-only"
                  aria-label={label}
                  aria-invalid={Boolean(error)}
                  aria-describedby={[description ? `${inputId}-description` : '', error ? `${inputId}-error` : ''].filter(Boolean).join(' ') || undefined}
                  disabled={upload.isPending}
                  onBlur={field.onBlur}
                  onChange={(event) => {
                    onFile(event.target.files?.[0])
                    event.target.value = ''
                  }}
                />
              </div>
            </div>
          )
        }}
      />
      {description && <FieldDescription id={`${inputId}-description`}>{description}</FieldDescription>}
      <FieldError id={`${inputId}-error`} error={error} />
    </div>
  )
}
