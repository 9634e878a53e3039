import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { FormProvider, useForm } from 'react-hook-form'
import { Link, useLocation, useNavigate } from 'react-router'

import { InputField } from '@/components/form/fields'
import { paths, type LoginRedirectState } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import { ADMIN_VERIFIED_KEY, pathAfterSignIn, signInSchema, useSignIn, type SignInValues } from '../api/sign-in'
import { AuthSubmit, AuthSwitch } from './auth-form-parts'
import { FormAlert } from './form-alert'
import { GoogleButton } from './google-button'
import { PasswordInput } from './password-input'

function readAdminVerified(): boolean {
  try {
    return window.localStorage.getItem(ADMIN_VERIFIED_KEY) === 'true'
  } catch {
    return false
  }
}

/** E-mail and password sign-in; failures are shown above the form. */
export function LoginForm() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const location = useLocation()
  const from = (location.state as LoginRedirectState | null)?.from
  const signIn = useSignIn()
  const [failure, setFailure] = useState<string | null>(null)
  const form = useForm<SignInValues>({ resolver: zodResolver(signInSchema), defaultValues: { email: '', password: '' } })

  const onSubmit = form.handleSubmit((values) => {
    setFailure(null)
    signIn.mutate(values, {
      onSuccess: (signedIn) => {
        toast({ title: t('auth.signInSuccess'), variant: 'success' })
        navigate(pathAfterSignIn(signedIn, from, readAdminVerified()), { replace: true })
      },
      onError: (error) => {
        const message = error.message || t('auth.signInFailed')
        setFailure(message)
        toast({ title: message, variant: 'destructive' })
      },
    })
  })

  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
        <FormAlert message={failure} />
        <InputField name="email" label={t('auth.email')} type="email" autoComplete="email" />
        <InputField name="password" label={t('auth.password')} input={PasswordInput} autoComplete="current-password" />
        <Link to={paths.forgotPassword} className="-mt-2 self-start text-sm text-primary hover:underline">
          {t('auth.forgotLink')}
        </Link>
        <AuthSubmit pending={signIn.isPending} label={t('auth.signIn')} pendingLabel={t('auth.signingIn')} />
        <GoogleButton />
        <AuthSwitch text={t('auth.noAccount')} link={t('auth.signUpLink')} to={paths.register} />
      </form>
    </FormProvider>
  )
}
