import { ImagePlusIcon, XIcon } from 'lucide-react'
import { useId, useRef, useState } from 'react'

import { Button } from '@/components/ui/button'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'
import type { UploadStage } from '@/lib/upload-image'
import { MAX_LISTING_IMAGES } from '@/lib/validation'

import { ListingImage } from './listing-image'

type PhotoUploadProps = {
  value: string[]
  onChange(paths: string[]): void
  /** Resizes and stores one photo, reporting its stage; returns its storage path. */
  upload(file: File, onStage: (stage: UploadStage) => void): Promise<string>
  accept: readonly string[]
  /** How many photos the listing may hold; with 1, a new photo replaces the old one. */
  max?: number
  /** Reports uploads in flight so the form can wait for them. */
  onBusyChange?(busy: boolean): void
  /** Called for a photo uploaded here and then removed (or replaced) before saving. */
  onDiscard?(path: string): void
}

type Progress = { index: number; total: number; stage: UploadStage }

/** Which of the picked files to upload: what still fits, or the first one when a single photo is replaced. */
export function filesToUpload(files: readonly File[], current: number, max: number): { chosen: File[]; dropped: number } {
  const room = max === 1 ? 1 : Math.max(0, max - current)
  const chosen = files.slice(0, room)
  return { chosen, dropped: files.length - chosen.length }
}

/**
 * Picks photos and uploads them one by one, showing for each whether it is
 * being resized or uploaded, then lists them with remove buttons.
 */
export function PhotoUpload({ value, onChange, upload, accept, max = MAX_LISTING_IMAGES, onBusyChange, onDiscard }: PhotoUploadProps) {
  const { t } = useTranslation()
  const id = useId()
  // Photos uploaded while this picker is on screen; only these are ever discarded.
  const uploadedHere = useRef(new Set<string>())

  const remove = (paths: readonly string[]) => {
    for (const path of paths) {
      if (uploadedHere.current.delete(path)) onDiscard?.(path)
    }
  }
  const [progress, setProgress] = useState<Progress | null>(null)

  const onFiles = async (files: FileList | null) => {
    if (!files?.length) return
    const { chosen, dropped } = filesToUpload(Array.from(files), value.length, max)
    if (dropped > 0) toast({ title: t('validation.imagesMax'), variant: 'destructive' })
    if (!chosen.length) return
    onBusyChange?.(true)
    const added: string[] = []
    for (const [index, file] of chosen.entries()) {
      try {
        added.push(await upload(file, (stage) => setProgress({ index, total: chosen.length, stage })))
      } catch (error) {
        toast({
          title: t('form.uploadFailed', { name: file.name }),
          description: error instanceof Error ? error.message : undefined,
          variant: 'destructive',
        })
      }
    }
    for (const path of added) uploadedHere.current.add(path)
    if (max === 1 && added.length) remove(value)
    if (added.length) onChange(max === 1 ? added.slice(-1) : [...value, ...added])
    setProgress(null)
    onBusyChange?.(false)
  }

  const pickLabel = max === 1 ? (value.length ? t('form.replacePhoto') : t('form.addPhoto')) : t('form.addPhotos')
  const stageText = progress
    ? t(progress.stage === 'resizing' ? 'form.resizingPhoto' : 'form.uploadingPhoto', { n: progress.index + 1, total: progress.total })
    : ''

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <Button asChild variant="outline" disabled={Boolean(progress)}>
          <label htmlFor={id} className="cursor-pointer">
            <ImagePlusIcon aria-hidden="true" />
            {pickLabel}
          </label>
        </Button>
        <input
          id={id}
          type="file"
          multiple={max > 1}
          accept={accept.join(',')}
          className="sr-only"
          aria-label={pickLabel}
          disabled={Boolean(progress)}
          onChange={(event) => {
            void onFiles(event.target.files)
            event.target.value = ''
          }}
        />
        {max > 1 && <span className="text-sm text-muted-foreground">{t('form.photoCount', { count: value.length, max })}</span>}
      </div>
      {progress && (
        <div role="status" className="flex items-center gap-3 text-sm">
          <progress
            aria-label={stageText}
            max={progress.total}
            value={progress.index + (progress.stage === 'uploading' ? 0.5 : 0)}
            className="h-2 flex-1 accent-primary"
          />
          {stageText}
        </div>
      )}
      {value.length > 0 && (
        <ul className="grid grid-cols-3 gap-2 sm:grid-cols-5">
          {value.map((path, index) => (
            <li key={path} className="relative">
              <ListingImage path={path} width={300} alt={t('form.photoN', { n: index + 1 })} className="aspect-square w-full rounded-md" />
              <Button
                type="button"
                size="icon"
                variant="secondary"
                className="absolute top-1 right-1 size-7"
                onClick={() => {
                  remove([path])
                  onChange(value.filter((item) => item !== path))
                }}
              >
                <XIcon aria-hidden="true" />
                <span className="sr-only">{t('form.removePhoto', { n: index + 1 })}</span>
              </Button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
