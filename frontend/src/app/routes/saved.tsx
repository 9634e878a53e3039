import { RequireAuth } from '@/features/auth/components/require-auth'
import { SavedListings } from '@/features/saved/components/saved-listings'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useDiscoverTranslation } from '@/lib/i18n/discover'

function SavedPage() {
  const { t, td } = useDiscoverTranslation()
  const { user } = useAuth()
  useDocumentMeta(`${td('saved.title')} | ${t('app.name')}`, td('saved.intro'))
  if (!user) return null
  return (
    <div className="mx-auto max-w-7xl px-4 py-10">
      <header className="mb-8">
        <h1 className="text-3xl font-bold tracking-tight">{td('saved.title')}</h1>
        <p className="mt-1 text-muted-foreground">{td('saved.intro')}</p>
      </header>
      <SavedListings userId={user.id} />
    </div>
  )
}

/** /saved: the signed-in user's saved listings; signed-out visitors go to /login and back. */
export function SavedRoute() {
  return (
    <RequireAuth>
      <SavedPage />
    </RequireAuth>
  )
}
