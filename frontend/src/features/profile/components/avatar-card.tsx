import '@/lib/i18n/account'
import { CameraIcon, CircleUserIcon } from 'lucide-react'
import { useId, useState } from 'react'

import { Button } from '@/components/ui/button'
import { Card, CardContent } from '@/components/ui/card'
import { AVATAR_TYPES } from '@/config/account'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { useTranslation } from '@/lib/i18n/i18n'
import { avatarUrl, userAvatarUrl } from '@/lib/storage'

import { avatarProblem, useUploadAvatar } from '../api/upload-avatar'

/**
 * The user's picture with an upload button (spec §5: JPG, PNG or GIF under
 * 2MB), their name and e-mail.
 */
export function AvatarCard({ fullName }: { fullName: string | null }) {
  const { t } = useTranslation()
  const { user } = useAuth()
  const upload = useUploadAvatar()
  const inputId = useId()
  const helpId = useId()
  const [failedSrc, setFailedSrc] = useState<string | null>(null)
  // The version of a picture uploaded here, in case the session has not caught up.
  const [uploaded, setUploaded] = useState<number | null>(null)
  if (!user) return null

  const src = uploaded ? `${avatarUrl(user.id)}?v=${uploaded}` : userAvatarUrl(user)
  const hasPicture = failedSrc !== src

  const onFile = (file: File | undefined) => {
    if (!file) return
    const problem = avatarProblem(file)
    if (problem) {
      toast({ title: t(problem), variant: 'destructive' })
      return
    }
    upload.mutate(
      { userId: user.id, file },
      {
        onSuccess: (version) => {
          setUploaded(version)
          toast({ title: t('profile.avatarUploaded'), variant: 'success' })
        },
        onError: (error) =>
          toast({ title: t('profile.avatarFailed'), description: error.message || undefined, variant: 'destructive' }),
      },
    )
  }

  const pickLabel = upload.isPending ? t('profile.avatarUploading') : hasPicture ? t('profile.avatarChange') : t('profile.avatarUpload')

  return (
    <Card>
      <CardContent className="flex flex-col items-center gap-4 text-center">
        <div className="relative">
          {hasPicture ? (
            <img
              src={src}
              alt={t('profile.avatarAlt')}
              className="size-28 rounded-full border object-cover"
              onError={() => setFailedSrc(src)}
            />
          ) : (
            <CircleUserIcon className="size-28 text-muted-foreground" strokeWidth={1} aria-hidden="true" />
          )}
        </div>
        <div className="min-w-0">
          <p className="truncate text-lg font-semibold">{fullName || t('account.user')}</p>
          <p className="truncate text-sm text-muted-foreground">{user.email}</p>
        </div>
        <Button asChild variant="outline" disabled={upload.isPending}>
          <label htmlFor={inputId} className="cursor-pointer">
            <CameraIcon aria-hidden="true" />
            {pickLabel}
          </label>
        </Button>
        <input
          id={inputId}
          type="file"
          accept={AVATAR_TYPES.join(',')}
          className="sr-only"
          aria-label={pickLabel}
          aria-describedby={helpId}
          disabled={upload.isPending}
          onChange={(event) => {
            onFile(event.target.files?.[0])
            event.target.value = ''
          }}
        />
        <p id={helpId} className="text-xs text-muted-foreground">
          {t('profile.avatarHelp')}
        </p>
      </CardContent>
    </Card>
  )
}
