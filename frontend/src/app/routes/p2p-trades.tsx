import { RequireAuth } from '@/features/auth/components/require-auth'
import { MyTrades } from '@/features/p2p/components/my-trades'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useP2pTranslation } from '@/lib/i18n/p2p'

function TradesPage() {
  const { t, tP2p } = useP2pTranslation()
  const { user } = useAuth()
  useDocumentMeta(`${tP2p('p2p.trades.title')} | ${t('app.name')}`, tP2p('p2p.trades.intro'))
  if (!user) return null
  return (
    <div className="mx-auto flex max-w-4xl flex-col gap-6 px-4 py-10">
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{tP2p('p2p.trades.title')}</h1>
        <p className="mt-1 text-muted-foreground">{tP2p('p2p.trades.intro')}</p>
      </header>
      <MyTrades userId={user.id} />
    </div>
  )
}

/** /p2p/trades (issue 14): the caller's open and past trades. Signed-in users only. */
export function P2pTradesRoute() {
  return (
    <RequireAuth>
      <TradesPage />
    </RequireAuth>
  )
}
