import { useParams } from 'react-router'

import { RequireAuth } from '@/features/auth/components/require-auth'
import { TradeView } from '@/features/p2p/components/trade-view'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useP2pTranslation } from '@/lib/i18n/p2p'

function TradePage() {
  const { t, tP2p } = useP2pTranslation()
  const { id = '' } = useParams()
  const { user } = useAuth()
  useDocumentMeta(`${tP2p('p2p.page.title', { id: id.slice(0, 8) })} | ${t('app.name')}`, tP2p('p2p.intro'))
  if (!user) return null
  return (
    <div className="mx-auto max-w-6xl px-4 py-10">
      <TradeView key={id} tradeId={id} userId={user.id} />
    </div>
  )
}

/** /p2p/trades/:id (issue 14): one trade, for either party, live. Signed-in users only. */
export function P2pTradeRoute() {
  return (
    <RequireAuth>
      <TradePage />
    </RequireAuth>
  )
}
