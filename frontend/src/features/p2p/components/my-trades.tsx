import { ArrowRightIcon } from 'lucide-react'
import { useState } from 'react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Tabs, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { OPEN_TRADE_STATUSES, p2pPaths } from '@/config/p2p'
import { formatDate, formatNumber } from '@/lib/format'
import { useP2pTranslation } from '@/lib/i18n/p2p'

import { useMyTrades } from '../api/get-trade'
import { useMyTradesRealtime } from '../api/realtime'
import { currencyLabel, formatKes2 } from './format'

type Show = 'open' | 'past' | 'all'

/** /p2p/trades: the caller's open and past trades, live. */
export function MyTrades({ userId }: { userId: string }) {
  const { tP2p } = useP2pTranslation()
  const [show, setShow] = useState<Show>('open')
  const trades = useMyTrades(userId)
  useMyTradesRealtime(userId)
  const isOpen = (status: string) => (OPEN_TRADE_STATUSES as readonly string[]).includes(status)
  const rows = (trades.data ?? []).filter((t) => show === 'all' || (show === 'open') === isOpen(t.status))
  return (
    <div className="flex flex-col gap-4">
      <Tabs value={show} onValueChange={(v) => setShow(v as Show)}>
        <TabsList aria-label={tP2p('p2p.trades.filter')}>
          <TabsTrigger value="open">{tP2p('p2p.trades.open')}</TabsTrigger>
          <TabsTrigger value="past">{tP2p('p2p.trades.past')}</TabsTrigger>
          <TabsTrigger value="all">{tP2p('p2p.trades.all')}</TabsTrigger>
        </TabsList>
      </Tabs>
      {trades.isPending ? (
        <ListLoading label={tP2p('p2p.trades.loading')} />
      ) : trades.isError ? (
        <ListError message={tP2p('p2p.trades.loadFailed')} onRetry={() => void trades.refetch()} />
      ) : rows.length === 0 ? (
        <ListEmpty title={tP2p('p2p.trades.empty')} hint={tP2p('p2p.trades.emptyHint')}>
          <Button asChild className="mt-2">
            <Link to={p2pPaths.board}>{tP2p('p2p.trades.toBoard')}</Link>
          </Button>
        </ListEmpty>
      ) : (
        <ul className="flex flex-col gap-3" aria-label={tP2p('p2p.trades.title')}>
          {rows.map((t) => {
            const buying = t.buyer_id === userId
            const what = { amount: formatNumber(t.amount), currency: currencyLabel(t.currency) }
            return (
              <li key={t.id} className="flex flex-wrap items-center gap-3 rounded-lg border p-4" data-testid="trade-row">
                <Badge variant={isOpen(t.status) ? 'warning' : 'secondary'}>{tP2p(`p2p.status.${t.status}`)}</Badge>
                <div className="flex-1">
                  <p className="font-medium">{buying ? tP2p('p2p.trades.buy', what) : tP2p('p2p.trades.sell', what)}</p>
                  <p className="text-sm text-muted-foreground">
                    {tP2p('p2p.trades.with', { name: t.counterparty_name ?? 'User' })} · {formatKes2(t.total_kes)} · {formatDate(t.created_at)}
                  </p>
                </div>
                <Button asChild variant="outline" size="sm">
                  <Link to={p2pPaths.trade(t.id)}>
                    {tP2p('p2p.trades.view')}
                    <ArrowRightIcon aria-hidden="true" />
                  </Link>
                </Button>
              </li>
            )
          })}
        </ul>
      )}
    </div>
  )
}
