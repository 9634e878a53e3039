import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm } from 'react-hook-form'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { formatDate, formatNumber } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { adminKeys } from '../api/keys'
import { useAdminLive } from '../api/dashboard'
import { resolveSchema, useDisputes, useDisputeThread, useResolveDispute, type DisputeRow, type ResolveValues } from '../api/disputes'
import { LiveIndicator } from './live-indicator'

function ResolveForm({ trade }: { trade: DisputeRow }) {
  const resolve = useResolveDispute()
  const form = useForm<ResolveValues>({ resolver: zodResolver(resolveSchema), defaultValues: { resolution: undefined, notes: '' } })
  const errors = form.formState.errors
  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await resolve.mutateAsync({ tradeId: trade.id, values })
      toast({ title: tA('admin.disputes.resolved'), variant: 'success' })
    } catch (failure) {
      toast({ title: (failure as { message?: string }).message || tA('admin.disputes.resolveFailed'), variant: 'destructive' })
    }
  })
  return (
    <form noValidate onSubmit={onSubmit} className="flex flex-col gap-3 border-t pt-3">
      <fieldset aria-invalid={!!errors.resolution} className="flex flex-col gap-1">
        <legend className="text-sm font-medium">{tA('admin.disputes.resolveTo')}</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" value="buyer" {...form.register('resolution')} /> {tA('admin.disputes.toBuyer')} — {trade.buyer_name || tA('admin.users.unknown')}
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" value="seller" {...form.register('resolution')} /> {tA('admin.disputes.toSeller')} — {trade.seller_name || tA('admin.users.unknown')}
        </label>
        {errors.resolution?.message && <FieldError>{tA(errors.resolution.message as AdminKey)}</FieldError>}
      </fieldset>
      <Field>
        <FieldLabel htmlFor={`dispute-notes-${trade.id}`}>{tA('admin.disputes.notes')}</FieldLabel>
        <Textarea id={`dispute-notes-${trade.id}`} aria-invalid={!!errors.notes} maxLength={1000} {...form.register('notes')} />
        {errors.notes?.message && <FieldError>{tA(errors.notes.message as AdminKey)}</FieldError>}
      </Field>
      <Button type="submit" disabled={resolve.isPending} className="self-start">
        {tA('admin.disputes.resolve')}
      </Button>
    </form>
  )
}

function Thread({ trade }: { trade: DisputeRow }) {
  const { lang } = useAdminTranslation()
  const thread = useDisputeThread(trade.id)
  if (thread.isPending) return <ListLoading label={tA('admin.disputes.loading')} />
  if (thread.isError) return <ListError message={tA('admin.disputes.failed')} onRetry={() => void thread.refetch()} />
  const nameOf = (id: string | null) => (id === trade.buyer_id ? trade.buyer_name : id === trade.seller_id ? trade.seller_name : null) ?? tA('admin.panel')
  return (
    <div className="grid gap-3 md:grid-cols-2">
      <section>
        <h3 className="text-sm font-semibold">{tA('admin.disputes.events')}</h3>
        <ol className="text-sm">
          {thread.data.events.map((e) => (
            <li key={e.id}>
              {formatDate(e.created_at, lang)} · {e.from_status ?? '—'} → {e.to_status}
            </li>
          ))}
        </ol>
      </section>
      <section>
        <h3 className="text-sm font-semibold">{tA('admin.disputes.chat')}</h3>
        {thread.data.messages.length === 0 ? (
          <p className="text-sm text-muted-foreground">{tA('admin.disputes.noChat')}</p>
        ) : (
          <ul className="flex flex-col gap-1 text-sm">
            {thread.data.messages.map((m) => (
              <li key={m.id}>
                <span className="font-medium">{nameOf(m.sender_id)}:</span> {m.body}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  )
}

function DisputeCard({ trade }: { trade: DisputeRow }) {
  const { lang } = useAdminTranslation()
  const [open, setOpen] = useState(trade.status === 'disputed')
  return (
    <Card role="article" aria-label={`${trade.buyer_name ?? ''} / ${trade.seller_name ?? ''} ${trade.amount} ${trade.currency}`}>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <h2 className="font-semibold">
          {tA('admin.disputes.amount', {
            amount: formatNumber(trade.amount, lang),
            currency: trade.currency,
            rate: trade.rate_per_unit,
            total: formatNumber(trade.total_kes, lang),
          })}
        </h2>
        {trade.status === 'disputed' ? (
          <Badge variant="warning">{tA('admin.disputes.open')}</Badge>
        ) : (
          <Badge variant="success">
            {tA('admin.disputes.resolvedBadge', { party: tA(trade.resolution === 'buyer' ? 'admin.disputes.buyer' : 'admin.disputes.seller') })}
          </Badge>
        )}
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        <dl className="grid grid-cols-2 gap-x-4 gap-y-1">
          <dt className="text-muted-foreground">{tA('admin.disputes.buyer')}</dt>
          <dd>{trade.buyer_name || tA('admin.users.unknown')}</dd>
          <dt className="text-muted-foreground">{tA('admin.disputes.seller')}</dt>
          <dd>{trade.seller_name || tA('admin.users.unknown')}</dd>
          <dt className="text-muted-foreground">{tA('admin.disputes.reference')}</dt>
          <dd>{trade.payment_reference ?? '—'}</dd>
          <dt className="text-muted-foreground">{tA('admin.disputes.reason')}</dt>
          <dd>{trade.dispute_reason ?? '—'}</dd>
          {trade.resolution_notes && (
            <>
              <dt className="text-muted-foreground">{tA('admin.disputes.notes')}</dt>
              <dd>{trade.resolution_notes}</dd>
            </>
          )}
        </dl>
        <details open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
          <summary className="cursor-pointer">{tA('admin.disputes.details')}</summary>
          {open && <Thread trade={trade} />}
        </details>
        {trade.status === 'disputed' && <ResolveForm trade={trade} />}
      </CardContent>
    </Card>
  )
}

/** /admin/disputes: disputed P2P trades with their events and chat, resolved to the buyer or the seller. */
export function DisputesList() {
  useAdminTranslation()
  const list = useDisputes()
  const live = useAdminLive('disputes', ['p2p_trades'], [adminKeys.disputes()])
  return (
    <div className="flex flex-col gap-4">
      <header className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{tA('admin.disputes.title')}</h1>
          <p className="text-muted-foreground">{tA('admin.disputes.intro')}</p>
        </div>
        <LiveIndicator status={live} />
      </header>
      {list.isPending ? (
        <ListLoading label={tA('admin.disputes.loading')} />
      ) : list.isError ? (
        <ListError message={tA('admin.disputes.failed')} onRetry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <ListEmpty title={tA('admin.disputes.empty')} />
      ) : (
        <div className="flex flex-col gap-4">
          {list.data.map((trade) => (
            <DisputeCard key={trade.id} trade={trade} />
          ))}
        </div>
      )}
    </div>
  )
}
