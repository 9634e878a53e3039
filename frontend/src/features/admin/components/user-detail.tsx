import { ArrowLeftIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { formatDate, formatNumber } from '@/lib/format'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { useUserDetail } from '../api/users'
import { AuditList } from './audit-list'

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card>
      <CardHeader>
        <h2 className="leading-none font-semibold">{title}</h2>
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  )
}

/** /admin/users/:id: who the user is, their listings, trades, wallet history and the admin actions about them. */
export function UserDetail({ id }: { id: string }) {
  const { lang } = useAdminTranslation()
  const detail = useUserDetail(id)
  if (detail.isPending) return <ListLoading label={tA('admin.users.loading')} />
  if (detail.isError) return <ListError message={tA('admin.users.detailFailed')} onRetry={() => void detail.refetch()} />
  const d = detail.data
  return (
    <div className="flex flex-col gap-4">
      <Link to="/admin/users" className="flex items-center gap-1 text-sm text-primary hover:underline">
        <ArrowLeftIcon className="size-4" aria-hidden="true" />
        {tA('admin.users.back')}
      </Link>
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{d.profile?.full_name || tA('admin.users.unknown')}</h1>
        <p className="text-muted-foreground">
          {d.email} · {d.profile?.phone_number || tA('admin.users.notProvided')}
          {d.profile && ` · ${tA('admin.users.joined')} ${formatDate(d.profile.created_at, lang)}`}
        </p>
        {d.suspension ? (
          <Badge variant="destructive">{tA('admin.users.suspendedType', { type: d.suspension.suspension_type })}</Badge>
        ) : (
          <Badge variant="success">{tA('admin.users.active')}</Badge>
        )}
      </header>
      <div className="grid gap-4 lg:grid-cols-2">
        <Section title={tA('admin.users.listings')}>
          {d.listings.length === 0 ? (
            <p className="text-sm text-muted-foreground">{tA('admin.users.noListings')}</p>
          ) : (
            <ul className="flex flex-col gap-1 text-sm">
              {d.listings.map((l) => (
                <li key={l.id} className="flex justify-between gap-2">
                  <span>
                    {l.title || '—'} <span className="text-muted-foreground">({l.kind})</span>
                  </span>
                  <span>{l.status}{l.active ? ' · ✓' : ''}</span>
                </li>
              ))}
            </ul>
          )}
        </Section>
        <Section title={tA('admin.users.trades')}>
          {d.trades.length === 0 ? (
            <p className="text-sm text-muted-foreground">{tA('admin.users.noTrades')}</p>
          ) : (
            <ul className="flex flex-col gap-1 text-sm">
              {d.trades.map((tr) => (
                <li key={tr.id} className="flex justify-between gap-2">
                  <span>
                    {tr.buyer_id === id ? tA('admin.disputes.buyer') : tA('admin.disputes.seller')} · {formatNumber(tr.amount, lang)} {tr.currency}
                  </span>
                  <span>{tr.status}</span>
                </li>
              ))}
            </ul>
          )}
        </Section>
        <Section title={tA('admin.users.wallet')}>
          {d.wallet.length === 0 ? (
            <p className="text-sm text-muted-foreground">{tA('admin.users.noWallet')}</p>
          ) : (
            <ul className="flex flex-col gap-1 text-sm">
              {d.wallet.map((w) => (
                <li key={`${w.id}-${w.currency}-${w.amount}`} className="flex justify-between gap-2">
                  <span>
                    {formatDate(w.created_at, lang)} · {w.kind}
                  </span>
                  <span className={w.amount < 0 ? 'text-destructive' : 'text-success'}>
                    {w.amount > 0 ? '+' : ''}
                    {formatNumber(w.amount, lang)} {w.currency}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Section>
        <Section title={tA('admin.users.audit')}>
          <AuditList entries={d.audit} empty={tA('admin.users.noAudit')} />
        </Section>
      </div>
    </div>
  )
}
