import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { formatDate } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { useContactMessages, useMarkContactHandled, useReports, useUpdateReport } from '../api/inbox'

function notify(ok: boolean, failure?: unknown) {
  toast(ok ? { title: tA('admin.inbox.updated'), variant: 'success' } : { title: (failure as { message?: string })?.message || tA('admin.inbox.updateFailed'), variant: 'destructive' })
}

/** /admin/reports: users' reports (0024) and contact-form messages, for the admins. */
export function AdminInbox() {
  const { lang } = useAdminTranslation()
  const { user } = useAuth()
  const reports = useReports()
  const messages = useContactMessages()
  const updateReport = useUpdateReport()
  const handle = useMarkContactHandled()

  const setReport = async (id: number, status: 'resolved' | 'dismissed') => {
    if (!user) return
    try {
      await updateReport.mutateAsync({ id, status, adminId: user.id })
      notify(true)
    } catch (failure) {
      notify(false, failure)
    }
  }
  const markHandled = async (id: number) => {
    try {
      await handle.mutateAsync(id)
      notify(true)
    } catch (failure) {
      notify(false, failure)
    }
  }

  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-3xl font-bold tracking-tight">{tA('admin.inbox.title')}</h1>
      <section aria-labelledby="admin-reports" className="flex flex-col gap-3">
        <h2 id="admin-reports" className="text-xl font-semibold">
          {tA('admin.inbox.reports')}
        </h2>
        {reports.isPending ? (
          <ListLoading label={tA('admin.inbox.loading')} />
        ) : reports.isError ? (
          <ListError message={tA('admin.inbox.failed')} onRetry={() => void reports.refetch()} />
        ) : reports.data.length === 0 ? (
          <ListEmpty title={tA('admin.inbox.noReports')} />
        ) : (
          reports.data.map((r) => (
            <Card key={r.id} role="article" aria-label={r.reason}>
              <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
                <p className="font-medium">{tA('admin.inbox.target', { kind: r.target_kind, id: r.target_id })}</p>
                <Badge variant={r.status === 'open' ? 'warning' : 'secondary'}>{tA(`admin.inbox.status.${r.status}` as AdminKey)}</Badge>
              </CardHeader>
              <CardContent className="flex flex-col gap-2 text-sm">
                <p>{r.reason}</p>
                <p className="text-muted-foreground">{formatDate(r.created_at, lang)}</p>
                {r.status === 'open' && (
                  <div className="flex gap-2">
                    <Button size="sm" disabled={updateReport.isPending} onClick={() => void setReport(r.id, 'resolved')}>
                      {tA('admin.inbox.resolve')}
                    </Button>
                    <Button size="sm" variant="outline" disabled={updateReport.isPending} onClick={() => void setReport(r.id, 'dismissed')}>
                      {tA('admin.inbox.dismiss')}
                    </Button>
                  </div>
                )}
              </CardContent>
            </Card>
          ))
        )}
      </section>
      <section aria-labelledby="admin-messages" className="flex flex-col gap-3">
        <h2 id="admin-messages" className="text-xl font-semibold">
          {tA('admin.inbox.messages')}
        </h2>
        {messages.isPending ? (
          <ListLoading label={tA('admin.inbox.loading')} />
        ) : messages.isError ? (
          <ListError message={tA('admin.inbox.failed')} onRetry={() => void messages.refetch()} />
        ) : messages.data.length === 0 ? (
          <ListEmpty title={tA('admin.inbox.noMessages')} />
        ) : (
          messages.data.map((m) => (
            <Card key={m.id} role="article" aria-label={m.name}>
              <CardHeader className="flex-row flex-wrap items-center justify-between gap-2">
                <p className="font-medium">
                  {m.name} · <a href={`mailto:${m.email}`}>{m.email}</a>
                </p>
                <Badge variant={m.status === 'new' ? 'warning' : 'secondary'}>{tA(`admin.inbox.status.${m.status}` as AdminKey)}</Badge>
              </CardHeader>
              <CardContent className="flex flex-col gap-2 text-sm">
                <p className="whitespace-pre-wrap">{m.message}</p>
                <p className="text-muted-foreground">{formatDate(m.created_at, lang)}</p>
                {m.status === 'new' && (
                  <Button size="sm" className="self-start" disabled={handle.isPending} onClick={() => void markHandled(m.id)}>
                    {tA('admin.inbox.handled')}
                  </Button>
                )}
              </CardContent>
            </Card>
          ))
        )}
      </section>
    </div>
  )
}
