import { useState } from 'react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardFooter, CardHeader } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { Field, FieldError, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { detailPath } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { formatDate, formatKES } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { adminKeys } from '../api/keys'
import { useAdminLive } from '../api/dashboard'
import { useListingAudit, useModerate, useModeration, type ListingSection, type ModerationAction, type ModerationItem } from '../api/listings'
import { AuditList } from './audit-list'
import { LiveIndicator } from './live-indicator'

const titles: Record<ListingSection, AdminKey> = {
  properties: 'admin.listings.properties',
  lands: 'admin.listings.lands',
  marketplace: 'admin.listings.marketplace',
  'drone-services': 'admin.listings.droneServices',
  'moving-services': 'admin.listings.movingServices',
}

const tables: Record<ListingSection, string> = {
  properties: 'properties',
  lands: 'lands',
  marketplace: 'products',
  'drone-services': 'service_providers',
  'moving-services': 'service_providers',
}

type Asking = { type: 'reject' | 'deactivate'; item: ModerationItem } | null

function ReasonDialog({ asking, busy, onCancel, onConfirm }: { asking: Asking; busy: boolean; onCancel(): void; onConfirm(reason: string): void }) {
  const [reason, setReason] = useState('')
  const [error, setError] = useState(false)
  const required = asking?.type === 'reject'
  const close = () => {
    setReason('')
    setError(false)
    onCancel()
  }
  return (
    <Dialog open={!!asking} onOpenChange={(open) => !open && close()}>
      <DialogContent closeLabel={tA('admin.users.cancel')}>
        <DialogTitle>
          {asking && tA(asking.type === 'reject' ? 'admin.listings.rejectTitle' : 'admin.listings.deactivateTitle', { title: asking.item.title })}
        </DialogTitle>
        <DialogDescription>{tA(required ? 'admin.listings.rejectDescription' : 'admin.listings.deactivateDescription')}</DialogDescription>
        <form
          noValidate
          className="flex flex-col gap-4"
          onSubmit={(event) => {
            event.preventDefault()
            if (required && !reason.trim()) {
              setError(true)
              return
            }
            onConfirm(reason)
            setReason('')
            setError(false)
          }}
        >
          <Field>
            <FieldLabel htmlFor="moderation-reason">{tA(required ? 'admin.listings.reason' : 'admin.listings.reasonOptional')}</FieldLabel>
            <Textarea id="moderation-reason" aria-invalid={error} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
            {error && <FieldError>{tA('admin.listings.reasonRequired')}</FieldError>}
          </Field>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={close} disabled={busy}>
              {tA('admin.users.cancel')}
            </Button>
            <Button type="submit" variant="destructive" disabled={busy}>
              {tA(required ? 'admin.listings.reject' : 'admin.listings.deactivate')}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}

function History({ id }: { id: string }) {
  const [open, setOpen] = useState(false)
  const audit = useListingAudit(id, open)
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)} className="text-sm">
      <summary className="cursor-pointer text-muted-foreground">{tA('admin.listings.history')}</summary>
      {audit.data && <AuditList entries={audit.data} empty={tA('admin.listings.noHistory')} />}
    </details>
  )
}

function ItemCard({ item, busy, act, ask }: { item: ModerationItem; busy: boolean; act(a: ModerationAction): void; ask(a: Asking): void }) {
  const { lang } = useAdminTranslation()
  const pending = item.paymentStatus === 'pending'
  const link = item.kind === 'property' ? detailPath.property(item.id) : item.kind === 'land' ? detailPath.land(item.id) : item.kind === 'product' ? detailPath.product(item.id) : detailPath.service(item.id)
  return (
    <Card role="article" aria-label={item.title}>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-2">
        <div>
          <h2 className="font-semibold">{item.title || '—'}</h2>
          <p className="text-sm text-muted-foreground">
            {tA('admin.listings.owner')}: {item.ownerName || tA('admin.users.unknown')} · {formatDate(item.createdAt, lang)}
          </p>
        </div>
        <div className="flex flex-wrap gap-1">
          <Badge variant={pending ? 'warning' : item.paymentStatus === 'rejected' ? 'destructive' : 'outline'}>
            {tA(`admin.listings.status.${item.paymentStatus}` as AdminKey)}
          </Badge>
          <Badge variant={item.isActive ? 'success' : 'secondary'}>{tA(item.isActive ? 'admin.listings.activeBadge' : 'admin.listings.inactiveBadge')}</Badge>
          {item.verified !== null && (
            <Badge variant={item.verified ? 'success' : 'warning'}>{tA(item.verified ? 'admin.listings.verified' : 'admin.listings.pendingVerification')}</Badge>
          )}
        </div>
      </CardHeader>
      <CardContent className="flex flex-col gap-1 text-sm">
        {item.price !== null && <p>{formatKES(item.price)}</p>}
        {item.location && <p className="text-muted-foreground">{item.location}</p>}
        {item.notes && <p className="italic">{item.notes}</p>}
        <History id={item.id} />
      </CardContent>
      <CardFooter className="flex-wrap">
        <Button asChild size="sm" variant="ghost">
          <Link to={link}>{tA('admin.listings.view')}</Link>
        </Button>
        {pending && (
          <>
            <Button size="sm" disabled={busy} onClick={() => act({ type: 'approve', item })}>
              {tA('admin.listings.approve')}
            </Button>
            <Button size="sm" variant="destructive" disabled={busy} onClick={() => ask({ type: 'reject', item })}>
              {tA('admin.listings.reject')}
            </Button>
          </>
        )}
        {item.isActive && (
          <Button size="sm" variant="outline" disabled={busy} onClick={() => ask({ type: 'deactivate', item })}>
            {tA('admin.listings.deactivate')}
          </Button>
        )}
        {item.verified !== null && (
          <Button size="sm" variant="secondary" disabled={busy} onClick={() => act({ type: 'verify', item, verified: !item.verified })}>
            {tA(item.verified ? 'admin.listings.unverify' : 'admin.listings.verify')}
          </Button>
        )}
      </CardFooter>
    </Card>
  )
}

const doneMessage = (action: ModerationAction): AdminKey =>
  action.type === 'approve'
    ? 'admin.listings.approved'
    : action.type === 'reject'
      ? 'admin.listings.rejected'
      : action.type === 'deactivate'
        ? 'admin.listings.deactivated'
        : action.type === 'verify' && action.verified
          ? 'admin.listings.verifiedOk'
          : 'admin.listings.unverifiedOk'

/** A moderation section (/admin/properties, /lands, /marketplace, /drone-services, /moving-services). */
export function ModerationList({ section }: { section: ListingSection }) {
  useAdminTranslation()
  const list = useModeration(section)
  const moderate = useModerate(section)
  const [asking, setAsking] = useState<Asking>(null)
  const live = useAdminLive(`listings-${section}`, [tables[section]], [adminKeys.listings(section)])

  const act = async (action: ModerationAction) => {
    try {
      await moderate.mutateAsync(action)
      toast({ title: tA(doneMessage(action)), variant: 'success' })
      setAsking(null)
    } catch (failure) {
      toast({ title: (failure as { message?: string }).message || tA('admin.listings.actionFailed'), variant: 'destructive' })
    }
  }
  const pendingCount = list.data?.filter((i) => i.paymentStatus === 'pending').length ?? 0

  return (
    <div className="flex flex-col gap-4">
      <header className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{tA(titles[section])}</h1>
          <p className="text-muted-foreground">
            {tA('admin.listings.intro')} {list.data && tA('admin.listings.pendingCount', { count: pendingCount })}
          </p>
        </div>
        <LiveIndicator status={live} />
      </header>
      {list.isPending ? (
        <ListLoading label={tA('admin.listings.loading')} />
      ) : list.isError ? (
        <ListError message={tA('admin.listings.failed')} onRetry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <ListEmpty title={tA('admin.listings.empty')} />
      ) : (
        <div className="grid gap-4 lg:grid-cols-2">
          {list.data.map((item) => (
            <ItemCard key={item.id} item={item} busy={moderate.isPending} act={(a) => void act(a)} ask={setAsking} />
          ))}
        </div>
      )}
      <ReasonDialog
        asking={asking}
        busy={moderate.isPending}
        onCancel={() => setAsking(null)}
        onConfirm={(reason) => asking && void act({ type: asking.type, item: asking.item, reason })}
      />
    </div>
  )
}
