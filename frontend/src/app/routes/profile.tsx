import '@/lib/i18n/account'
import { ListError, ListLoading } from '@/components/listings/list-states'
import { RequireAuth } from '@/features/auth/components/require-auth'
import { KycStatusCard } from '@/features/kyc/components/kyc-status-card'
import { useProfile } from '@/features/profile/api/get-profile'
import { AvatarCard } from '@/features/profile/components/avatar-card'
import { ContactVerificationCard } from '@/features/profile/components/contact-verification-card'
import { ProfileForm } from '@/features/profile/components/profile-form'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useTranslation } from '@/lib/i18n/i18n'

function ProfilePage() {
  const { t } = useTranslation()
  const { user } = useAuth()
  const profile = useProfile(user?.id)
  useDocumentMeta(`${t('profile.title')} | ${t('app.name')}`, t('profile.intro'))
  if (!user) return null

  return (
    <div className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-10">
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{t('profile.title')}</h1>
        <p className="mt-1 text-muted-foreground">{t('profile.intro')}</p>
      </header>
      {profile.isPending ? (
        <ListLoading label={t('profile.loading')} />
      ) : profile.isError ? (
        <ListError message={t('profile.loadFailed')} onRetry={() => void profile.refetch()} />
      ) : (
        <div className="grid items-start gap-6 lg:grid-cols-3">
          <div className="flex flex-col gap-6">
            <AvatarCard fullName={profile.data?.full_name ?? null} />
            <KycStatusCard userId={user.id} />
          </div>
          <div className="flex flex-col gap-6 lg:col-span-2">
            <ProfileForm userId={user.id} email={user.email ?? ''} profile={profile.data} />
            <ContactVerificationCard userId={user.id} email={user.email ?? ''} phone={profile.data?.phone_number ?? null} />
          </div>
        </div>
      )}
    </div>
  )
}

/**
 * /profile (spec §2): the avatar, personal information, the identity (KYC)
 * status and contact verification. Signed-in users only.
 */
export function ProfileRoute() {
  return (
    <RequireAuth>
      <ProfilePage />
    </RequireAuth>
  )
}
