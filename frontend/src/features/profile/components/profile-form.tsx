import '@/lib/i18n/account'
import { zodResolver } from '@hookform/resolvers/zod'
import { useId } from 'react'
import { FormProvider, useForm } from 'react-hook-form'
import type { z } from 'zod'

import { InputField } from '@/components/form/fields'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Field, FieldDescription, FieldLabel } from '@/components/ui/field'
import { Input } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import type { Profile } from '../api/get-profile'
import { profileFieldError, profileSchema, useUpdateProfile, type ProfileValues } from '../api/update-profile'

type ProfileInput = z.input<typeof profileSchema>

function valuesOf(profile: Profile | null): ProfileInput {
  return { full_name: profile?.full_name ?? '', phone_number: profile?.phone_number ?? '' }
}

/**
 * Personal information (spec §5): full name and phone number, both
 * optional; the e-mail is shown read-only. The phone is saved as +254….
 */
export function ProfileForm({ userId, email, profile }: { userId: string; email: string; profile: Profile | null }) {
  const { t } = useTranslation()
  const emailId = useId()
  const update = useUpdateProfile()
  const form = useForm<ProfileInput, unknown, ProfileValues>({
    resolver: zodResolver(profileSchema),
    defaultValues: valuesOf(profile),
  })

  const onSubmit = form.handleSubmit((values) => {
    update.mutate(
      { userId, values },
      {
        onSuccess: (saved) => {
          form.reset(valuesOf(saved))
          toast({ title: t('profile.updated'), variant: 'success' })
        },
        onError: (error) => {
          const fieldError = profileFieldError(error)
          if (fieldError) form.setError(fieldError.field, { message: fieldError.message }, { shouldFocus: true })
          toast({
            title: t('profile.updateFailed'),
            description: fieldError ? t(fieldError.message) : error.message || undefined,
            variant: 'destructive',
          })
        },
      },
    )
  })

  return (
    <Card>
      <CardHeader>
        <h2 className="leading-none font-semibold">{t('profile.personalInfo')}</h2>
        <p className="text-sm text-muted-foreground">{t('profile.personalInfoHint')}</p>
      </CardHeader>
      <CardContent>
        <FormProvider {...form}>
          <form onSubmit={onSubmit} noValidate className="flex flex-col gap-5">
            <InputField name="full_name" label={t('profile.fullName')} autoComplete="name" />
            <InputField
              name="phone_number"
              label={t('profile.phone')}
              type="tel"
              autoComplete="tel"
              placeholder="0712 345 678"
              description={t('profile.phoneHelp')}
            />
            <Field>
              <FieldLabel htmlFor={emailId}>{t('profile.email')}</FieldLabel>
              <Input id={emailId} type="email" value={email} readOnly aria-describedby={`${emailId}-description`} className="bg-muted" />
              <FieldDescription id={`${emailId}-description`}>{t('profile.emailReadOnly')}</FieldDescription>
            </Field>
            <Button type="submit" disabled={update.isPending} className="self-start">
              {update.isPending ? t('profile.saving') : t('profile.save')}
            </Button>
          </form>
        </FormProvider>
      </CardContent>
    </Card>
  )
}
