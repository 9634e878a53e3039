import '@/lib/i18n/account'
import { ArrowLeftIcon } from 'lucide-react'
import { Link } from 'react-router'

import { paths } from '@/config/paths'
import { RequireAuth } from '@/features/auth/components/require-auth'
import { KycVerification } from '@/features/kyc/components/kyc-verification'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useTranslation } from '@/lib/i18n/i18n'

function KycVerificationPage() {
  const { t } = useTranslation()
  const { user } = useAuth()
  useDocumentMeta(`${t('kyc.title')} | ${t('app.name')}`, t('kyc.subtitle'))
  if (!user) return null

  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-10">
      <Link to={paths.profile} className="flex items-center gap-1 self-start text-sm text-primary hover:underline">
        <ArrowLeftIcon className="size-4" aria-hidden="true" />
        {t('kyc.backToProfile')}
      </Link>
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{t('kyc.title')}</h1>
        <p className="mt-1 text-muted-foreground">{t('kyc.subtitle')}</p>
      </header>
      <KycVerification userId={user.id} />
    </div>
  )
}

/** /kyc-verification: identity documents for review, then their status. Signed-in users only. */
export function KycVerificationRoute() {
  return (
    <RequireAuth>
      <KycVerificationPage />
    </RequireAuth>
  )
}
