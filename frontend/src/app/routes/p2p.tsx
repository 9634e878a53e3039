import { Link } from 'react-router'

import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { OfferBoard } from '@/features/p2p/components/offer-board'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useP2pTranslation } from '@/lib/i18n/p2p'

/**
 * /p2p (spec §2): the live offer board for signed-in users; a visitor reads
 * 'Please login to access P2P trading' with a link to /login.
 */
export function P2pRoute() {
  const { t, tP2p } = useP2pTranslation()
  const { status, user } = useAuth()
  useDocumentMeta(`${tP2p('p2p.title')} | ${t('app.name')}`, tP2p('p2p.intro'))
  if (status === 'loading') return <Spinner label={t('app.loading')} className="py-24" />
  if (!user) {
    return (
      <div className="mx-auto flex max-w-xl flex-col items-center gap-4 px-4 py-24 text-center">
        <h1 className="text-3xl font-bold tracking-tight">{tP2p('p2p.title')}</h1>
        <p className="text-muted-foreground">{tP2p('p2p.signedOut')}</p>
        <Link to={paths.login} state={{ from: paths.p2p }} className="font-medium text-primary underline-offset-4 hover:underline">
          {tP2p('p2p.signedOutLink')}
        </Link>
      </div>
    )
  }
  return <OfferBoard userId={user.id} />
}

// The trade pages load with the board (one chunk, one entry in the shell's
// preload map: the landing budget counts every lazy route's entry).
export { P2pTradeRoute } from './p2p-trade'
export { P2pTradesRoute } from './p2p-trades'
