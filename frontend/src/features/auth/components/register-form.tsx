import { zodResolver } from '@hookform/resolvers/zod'
import { MailCheckIcon } from 'lucide-react'
import { useState } from 'react'
import { FormProvider, useForm } from 'react-hook-form'
import { Link, useNavigate } from 'react-router'

import { InputField } from '@/components/form/fields'
import { Button } from '@/components/ui/button'
import { Field, FieldError } from '@/components/ui/field'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import { authFieldError } from '../api/error-fields'
import { signUpSchema, useSignUp, type SignUpValues } from '../api/sign-up'
import { AuthSubmit, AuthSwitch } from './auth-form-parts'
import { FormAlert } from './form-alert'
import { GoogleButton } from './google-button'
import { PasswordInput } from './password-input'

/** Sign-up with full name, e-mail, password and the terms box; failures are shown. */
export function RegisterForm() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const signUp = useSignUp()
  const [failure, setFailure] = useState<string | null>(null)
  const [sentTo, setSentTo] = useState<string | null>(null)
  const form = useForm<SignUpValues>({
    resolver: zodResolver(signUpSchema),
    defaultValues: { fullName: '', email: '', password: '', terms: false },
  })
  const { errors } = form.formState

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    signUp.mutate(values, {
      onSuccess: ({ confirmed }) => {
        toast({ title: t('auth.signUpSuccess'), variant: 'success' })
        if (confirmed) navigate(paths.root, { replace: true })
        else setSentTo(values.email)
      },
      onError: (error) => {
        const onField = authFieldError(error)
        if (onField) {
          form.setError(onField.field, { message: onField.message }, { shouldFocus: true })
          toast({ title: t(onField.message), variant: 'destructive' })
          return
        }
        const message = error.message || t('auth.signUpFailed')
        setFailure(message)
        toast({ title: message, variant: 'destructive' })
      },
    })
  })

  if (sentTo) {
    return (
      <div role="status" className="flex flex-col items-center gap-3 text-center">
        <MailCheckIcon className="size-10 text-primary" aria-hidden="true" />
        <h2 className="text-xl font-semibold">{t('auth.checkEmailTitle')}</h2>
        <p className="text-muted-foreground">{t('auth.checkEmailBody', { email: sentTo })}</p>
        <Button asChild variant="outline">
          <Link to={paths.login}>{t('auth.backToLogin')}</Link>
        </Button>
      </div>
    )
  }

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
        <FormAlert message={failure} />
        <InputField name="fullName" label={t('auth.fullName')} autoComplete="name" />
        <InputField name="email" label={t('auth.email')} type="email" autoComplete="email" />
        <InputField name="password" label={t('auth.password')} input={PasswordInput} autoComplete="new-password" description={t('auth.passwordHelp')} />
        <Field>
          <div className="flex items-start gap-2">
            <input
              id="register-terms"
              type="checkbox"
              className="mt-0.5 size-4 accent-primary"
              aria-invalid={Boolean(errors.terms)}
              aria-describedby={errors.terms ? 'register-terms-error' : undefined}
              {...form.register('terms')}
            />
            <label htmlFor="register-terms" className="text-sm">
              {t('auth.termsAgree')}{' '}
              <Link to={paths.terms} className="text-primary underline underline-offset-4">
                {t('footer.terms')}
              </Link>{' '}
              {t('auth.and')}{' '}
              <Link to={paths.privacy} className="text-primary underline underline-offset-4">
                {t('footer.privacy')}
              </Link>
            </label>
          </div>
          <FieldError id="register-terms-error" error={errors.terms} />
        </Field>
        <AuthSubmit pending={signUp.isPending} label={t('auth.createAccount')} pendingLabel={t('auth.creatingAccount')} />
        <GoogleButton />
        <AuthSwitch text={t('auth.haveAccount')} link={t('auth.signInLink')} to={paths.login} />
      </form>
    </FormProvider>
  )
}
