import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { FormProvider, useForm } from 'react-hook-form'
import { Link, useNavigate } from 'react-router'

import { InputField } from '@/components/form/fields'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import { authFieldError } from '../api/error-fields'
import {
  forgotPasswordSchema,
  resetPasswordSchema,
  useRequestPasswordReset,
  useUpdatePassword,
  type ForgotPasswordValues,
  type ResetPasswordValues,
} from '../api/reset-password'
import { AuthSubmit } from './auth-form-parts'
import { FormAlert } from './form-alert'
import { PasswordInput } from './password-input'

/** Asks for the e-mail and sends the recovery link. */
export function ForgotPasswordForm() {
  const { t } = useTranslation()
  const request = useRequestPasswordReset()
  const [failure, setFailure] = useState<string | null>(null)
  const [sentTo, setSentTo] = useState<string | null>(null)
  const form = useForm<ForgotPasswordValues>({ resolver: zodResolver(forgotPasswordSchema), defaultValues: { email: '' } })

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    request.mutate(values, {
      onSuccess: () => setSentTo(values.email),
      onError: (error) => setFailure(error.message || t('auth.resetRequestFailed')),
    })
  })

  if (sentTo) {
    return (
      <div role="status" className="flex flex-col gap-3 text-center">
        <p>{t('auth.resetSent', { email: sentTo })}</p>
        <Link to={paths.login} className="text-primary hover:underline">
          {t('auth.backToLogin')}
        </Link>
      </div>
    )
  }

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
        <FormAlert message={failure} />
        <InputField name="email" label={t('auth.email')} type="email" autoComplete="email" />
        <AuthSubmit pending={request.isPending} label={t('auth.sendResetLink')} />
        <Link to={paths.login} className="text-center text-sm text-primary hover:underline">
          {t('auth.backToLogin')}
        </Link>
      </form>
    </FormProvider>
  )
}

/** Sets a new password after the recovery link signed the user in. */
export function ResetPasswordForm() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const update = useUpdatePassword()
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<ResetPasswordValues>({
    resolver: zodResolver(resetPasswordSchema),
    defaultValues: { password: '', confirm: '' },
  })

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    update.mutate(values, {
      onSuccess: () => {
        toast({ title: t('auth.passwordUpdated'), variant: 'success' })
        navigate(paths.home, { replace: true })
      },
      onError: (error) => {
        const onField = authFieldError(error)
        if (onField?.field === 'password') form.setError('password', { message: onField.message }, { shouldFocus: true })
        else setFailure(error.message || t('auth.passwordUpdateFailed'))
      },
    })
  })

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
        <FormAlert message={failure} />
        <InputField name="password" label={t('auth.newPassword')} input={PasswordInput} autoComplete="new-password" description={t('auth.passwordHelp')} />
        <InputField name="confirm" label={t('auth.confirmPassword')} input={PasswordInput} autoComplete="new-password" />
        <AuthSubmit pending={update.isPending} label={t('auth.savePassword')} />
      </form>
    </FormProvider>
  )
}
