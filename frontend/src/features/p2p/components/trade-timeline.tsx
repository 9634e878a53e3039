import { CircleCheckIcon } from 'lucide-react'

import type { P2pKey } from '@/lib/i18n/en-p2p'
import { useP2pTranslation } from '@/lib/i18n/p2p'

import type { TradeEvent } from '../api/get-trade'

/** The trade's status changes (p2p_trade_events), oldest first, with who acted and when. */
export function TradeTimeline({ events, userId, names }: { events: TradeEvent[]; userId: string; names: Record<string, string> }) {
  const { tP2p } = useP2pTranslation()
  return (
    <section aria-labelledby="trade-timeline" className="rounded-lg border p-4">
      <h2 id="trade-timeline" className="mb-3 font-semibold">
        {tP2p('p2p.page.timeline')}
      </h2>
      <ol className="flex flex-col gap-3" data-testid="timeline">
        {events.map((e) => {
          const who =
            e.actor_id === userId
              ? tP2p('p2p.page.you')
              : e.actor_id && names[e.actor_id]
                ? names[e.actor_id]
                : e.actor_id
                  ? tP2p('p2p.page.admin')
                  : tP2p('p2p.page.system')
          const label = e.from_status == null ? tP2p('p2p.status.created') : tP2p(`p2p.status.${e.to_status}` as P2pKey)
          return (
            <li key={e.id} className="flex items-start gap-3 text-sm">
              <CircleCheckIcon className="mt-0.5 size-4 shrink-0 text-success" aria-hidden="true" />
              <div>
                <p className="font-medium">{label}</p>
                <p className="text-xs text-muted-foreground">
                  {who} · {new Date(e.created_at).toLocaleString()}
                </p>
              </div>
            </li>
          )
        })}
      </ol>
    </section>
  )
}
