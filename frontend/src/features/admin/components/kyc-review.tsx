import { useState } from 'react'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardFooter, CardHeader } from '@/components/ui/card'
import { Field, FieldLabel } from '@/components/ui/field'
import { Textarea } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { formatDate } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'
import { fallBackToPlaceholder, PLACEHOLDER_IMAGE } from '@/lib/storage'

import { adminKeys } from '../api/keys'
import { useAdminLive } from '../api/dashboard'
import { useKycDocumentUrl, useKycList, useProcessKyc, type KycRow } from '../api/kyc'
import { LiveIndicator } from './live-indicator'

const statusVariant = { pending: 'warning', approved: 'success', rejected: 'destructive' } as const

/** One document through a short-lived signed URL; a failed link or image shows the placeholder. */
function KycDocument({ path, label }: { path: string | null; label: string }) {
  const url = useKycDocumentUrl(path)
  if (!path) {
    return (
      <figure className="flex flex-col gap-1">
        <div className="flex aspect-[4/3] items-center justify-center rounded-md border bg-muted text-xs text-muted-foreground">{tA('admin.kyc.noDocument')}</div>
        <figcaption className="text-xs">{label}</figcaption>
      </figure>
    )
  }
  if (/\.pdf$/i.test(path) && url.data) {
    return (
      <figure className="flex flex-col gap-1">
        <a href={url.data} target="_blank" rel="noreferrer" className="flex aspect-[4/3] items-center justify-center rounded-md border text-sm text-primary underline">
          {tA('admin.kyc.openPdf')}
        </a>
        <figcaption className="text-xs">{label}</figcaption>
      </figure>
    )
  }
  const src = url.isError ? PLACEHOLDER_IMAGE : url.data
  return (
    <figure className="flex flex-col gap-1">
      {src ? (
        <a href={src} target="_blank" rel="noreferrer">
          <img src={src} alt={label} onError={fallBackToPlaceholder} className="aspect-[4/3] w-full rounded-md border object-cover" />
        </a>
      ) : (
        <div aria-hidden="true" className="aspect-[4/3] animate-pulse rounded-md bg-muted" />
      )}
      <figcaption className="text-xs">{label}</figcaption>
    </figure>
  )
}

function KycCard({ row }: { row: KycRow }) {
  const { lang } = useAdminTranslation()
  const { user } = useAuth()
  const [notes, setNotes] = useState(row.admin_notes ?? '')
  const process = useProcessKyc()
  const pending = row.verification_status === 'pending'
  const status = row.verification_status as keyof typeof statusVariant
  const name = row.full_name || tA('admin.users.unknown')

  const decide = async (action: 'approved' | 'rejected') => {
    if (!user) {
      toast({ title: 'Not authenticated', variant: 'destructive' })
      return
    }
    try {
      await process.mutateAsync({ id: row.id, adminId: user.id, action, notes })
      toast({ title: tA(action === 'approved' ? 'admin.kyc.approvedOk' : 'admin.kyc.rejectedOk'), variant: 'success' })
    } catch (failure) {
      toast({
        title: (failure as { message?: string }).message || tA('admin.kyc.actionFailed', { action: action === 'approved' ? 'approve' : 'reject' }),
        variant: 'destructive',
      })
    }
  }

  return (
    <Card aria-label={name} role="article">
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
        <h2 className="font-semibold">{name}</h2>
        <Badge variant={statusVariant[status] ?? 'outline'}>{tA(`admin.kyc.${status}` as AdminKey)}</Badge>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted-foreground">{tA('admin.kyc.idType')}</dt>
          <dd>{row.id_type}</dd>
          <dt className="text-muted-foreground">{tA('admin.kyc.idNumber')}</dt>
          <dd>{row.id_number}</dd>
          <dt className="text-muted-foreground">{tA('admin.kyc.address')}</dt>
          <dd>{row.physical_address || tA('admin.users.notProvided')}</dd>
          <dt className="text-muted-foreground">{tA('admin.kyc.submitted')}</dt>
          <dd>{formatDate(row.created_at, lang)}</dd>
        </dl>
        <div className="grid grid-cols-3 gap-2">
          <KycDocument path={row.photo_url} label={tA('admin.kyc.photo')} />
          <KycDocument path={row.id_document_front_url} label={tA('admin.kyc.front')} />
          <KycDocument path={row.id_document_back_url} label={tA('admin.kyc.back')} />
        </div>
        <Field>
          <FieldLabel htmlFor={`kyc-notes-${row.id}`}>{tA('admin.kyc.notes')}</FieldLabel>
          <Textarea id={`kyc-notes-${row.id}`} value={notes} disabled={!pending} maxLength={1000} onChange={(e) => setNotes(e.target.value)} />
        </Field>
      </CardContent>
      <CardFooter>
        <Button disabled={!pending || process.isPending} onClick={() => void decide('approved')}>
          {tA('admin.kyc.approve')}
        </Button>
        <Button variant="destructive" disabled={!pending || process.isPending} onClick={() => void decide('rejected')}>
          {tA('admin.kyc.reject')}
        </Button>
      </CardFooter>
    </Card>
  )
}

/** /admin/kyc (spec §2 KYC Verification Management): pending first, new submissions arriving live. */
export function KycReview() {
  useAdminTranslation()
  const list = useKycList()
  const live = useAdminLive('kyc', ['kyc_verifications'], [adminKeys.kyc()])
  return (
    <div className="flex flex-col gap-4">
      <header className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">{tA('admin.kyc.title')}</h1>
          <p className="text-muted-foreground">{tA('admin.kyc.intro')}</p>
        </div>
        <LiveIndicator status={live} />
      </header>
      {list.isPending ? (
        <ListLoading label={tA('admin.kyc.loading')} />
      ) : list.isError ? (
        <ListError message={tA('admin.kyc.failed')} onRetry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <ListEmpty title={tA('admin.kyc.empty')} />
      ) : (
        <div className="grid gap-4 lg:grid-cols-2">
          {list.data.map((row) => (
            <KycCard key={`${row.id}-${row.verification_status}`} row={row} />
          ))}
        </div>
      )}
    </div>
  )
}
