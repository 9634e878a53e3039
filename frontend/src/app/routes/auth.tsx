import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { LoginForm } from '@/features/auth/components/login-form'
import { ForgotPasswordForm, ResetPasswordForm } from '@/features/auth/components/password-reset-forms'
import { RegisterForm } from '@/features/auth/components/register-form'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

function AuthPage({ title, subtitle, children }: { title: MessageKey; subtitle: MessageKey; children: ReactNode }) {
  const { t } = useTranslation()
  useDocumentMeta(`${t(title)} | ${t('app.name')}`, t(subtitle))
  return (
    <div className="mx-auto flex max-w-md flex-col px-4 py-12">
      <Card>
        <CardHeader>
          <h1 className="text-2xl font-bold">{t(title)}</h1>
          <p className="text-sm text-muted-foreground">{t(subtitle)}</p>
        </CardHeader>
        <CardContent>{children}</CardContent>
      </Card>
    </div>
  )
}

export function LoginRoute() {
  return (
    <AuthPage title="auth.loginTitle" subtitle="auth.loginSubtitle">
      <LoginForm />
    </AuthPage>
  )
}

export function RegisterRoute() {
  return (
    <AuthPage title="auth.registerTitle" subtitle="auth.registerSubtitle">
      <RegisterForm />
    </AuthPage>
  )
}

export function ForgotPasswordRoute() {
  return (
    <AuthPage title="auth.forgotTitle" subtitle="auth.forgotSubtitle">
      <ForgotPasswordForm />
    </AuthPage>
  )
}

/** Reached from the recovery mail: supabase-js reads the link's tokens and signs the user in. */
export function ResetPasswordRoute() {
  const { status } = useAuth()
  const { t } = useTranslation()
  return (
    <AuthPage title="auth.resetTitle" subtitle="auth.resetSubtitle">
      {status === 'signed-out' ? (
        <p role="alert" className="text-sm">
          {t('auth.resetLinkInvalid')}{' '}
          <Link to={paths.forgotPassword} className="text-primary underline underline-offset-4">
            {t('auth.forgotLink')}
          </Link>
        </p>
      ) : (
        <ResetPasswordForm />
      )}
    </AuthPage>
  )
}
