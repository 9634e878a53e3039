import { useEffect, useState } from 'react'
import { Link } from 'react-router'

import { ListEmpty, ListError, ListLoading } from '@/components/listings/list-states'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { toast } from '@/hooks/use-toast'
import { useAuth } from '@/lib/auth'
import { formatDate } from '@/lib/format'
import type { AdminKey } from '@/lib/i18n/en-admin'
import { tA, useAdminTranslation } from '@/lib/i18n/admin'

import { USERS_PAGE_SIZE, useUnsuspendUser, useUsers, type AdminUserRow } from '../api/users'
import { DeleteUserDialog } from './delete-user-dialog'
import { SuspendDialog } from './suspend-dialog'

function kycLabel(status: AdminUserRow['kyc_status']): string {
  if (!status) return tA('admin.users.kycNone')
  return tA(`admin.kyc.${status}` as AdminKey)
}

/** /admin/users (spec §2 User Management): a server-side paginated, searchable table. */
export function UsersTable() {
  const { lang } = useAdminTranslation()
  const { user: admin } = useAuth()
  const [input, setInput] = useState('')
  const [search, setSearch] = useState('')
  const [page, setPage] = useState(1)
  const [suspending, setSuspending] = useState<{ id: string; name: string } | null>(null)
  const [deleting, setDeleting] = useState<{ id: string; name: string } | null>(null)
  const users = useUsers(search, page)
  const unsuspend = useUnsuspendUser()

  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(input.trim())
      setPage(1)
    }, 300)
    return () => clearTimeout(timer)
  }, [input])

  const total = users.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(total / USERS_PAGE_SIZE))

  const lift = async (row: AdminUserRow) => {
    if (!admin) return
    try {
      await unsuspend.mutateAsync({ userId: row.id, adminId: admin.id })
      toast({ title: tA('admin.users.unsuspendedOk'), variant: 'success' })
    } catch (failure) {
      toast({ title: (failure as { message?: string }).message || tA('admin.users.unsuspendFailed'), variant: 'destructive' })
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <header>
        <h1 className="text-3xl font-bold tracking-tight">{tA('admin.users.title')}</h1>
        <p className="text-muted-foreground">{tA('admin.users.intro')}</p>
      </header>
      <div role="search" className="max-w-md">
        <label htmlFor="admin-user-search" className="sr-only">
          {tA('admin.users.search')}
        </label>
        <Input id="admin-user-search" type="search" placeholder={tA('admin.users.searchPlaceholder')} value={input} onChange={(e) => setInput(e.target.value)} />
      </div>
      {users.isPending ? (
        <ListLoading label={tA('admin.users.loading')} />
      ) : users.isError ? (
        <ListError message={tA('admin.users.failed')} onRetry={() => void users.refetch()} />
      ) : users.data.items.length === 0 ? (
        <ListEmpty title={tA('admin.users.empty')} />
      ) : (
        <>
          <div className="overflow-x-auto rounded-lg border">
            <table className="w-full text-sm">
              <caption className="sr-only">{tA('admin.users.title')}</caption>
              <thead className="bg-muted/50 text-left">
                <tr>
                  {(['email', 'name', 'phone', 'joined', 'kyc', 'status', 'actions'] as const).map((col) => (
                    <th key={col} scope="col" className="px-3 py-2 font-medium">
                      {tA(`admin.users.${col}` as AdminKey)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {users.data.items.map((row) => {
                  const name = row.full_name || tA('admin.users.unknown')
                  return (
                    <tr key={row.id} className="border-t">
                      <td className="px-3 py-2 break-all">{row.email}</td>
                      <td className="px-3 py-2">
                        {name} {row.role === 'admin' && <Badge variant="secondary">{tA('admin.users.admin')}</Badge>}
                      </td>
                      <td className="px-3 py-2">{row.phone_number || tA('admin.users.notProvided')}</td>
                      <td className="px-3 py-2 whitespace-nowrap">{formatDate(row.created_at, lang)}</td>
                      <td className="px-3 py-2">{kycLabel(row.kyc_status)}</td>
                      <td className="px-3 py-2">
                        {row.is_suspended ? (
                          <Badge variant="destructive">
                            {tA('admin.users.suspendedType', { type: tA(`admin.users.${row.suspension_type}` as AdminKey) })}
                          </Badge>
                        ) : (
                          <Badge variant="success">{tA('admin.users.active')}</Badge>
                        )}
                      </td>
                      <td className="px-3 py-2">
                        <div className="flex gap-2" role="group" aria-label={`${tA('admin.users.actions')}: ${row.email}`}>
                          <Button asChild size="sm" variant="outline">
                            <Link to={`/admin/users/${row.id}`}>{tA('admin.users.view')}</Link>
                          </Button>
                          {row.is_suspended ? (
                            <Button size="sm" variant="secondary" disabled={unsuspend.isPending} onClick={() => void lift(row)}>
                              {tA('admin.users.unsuspend')}
                            </Button>
                          ) : (
                            <Button size="sm" variant="destructive" disabled={row.role === 'admin'} onClick={() => setSuspending({ id: row.id, name })}>
                              {tA('admin.users.suspend')}
                            </Button>
                          )}
                          <Button size="sm" variant="outline" disabled={row.role === 'admin'} onClick={() => setDeleting({ id: row.id, name })}>
                            {tA('admin.users.delete')}
                          </Button>
                        </div>
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
          <nav aria-label="pagination" className="flex items-center justify-between gap-3 text-sm">
            <span>{tA('admin.users.page', { page, pages, total })}</span>
            <div className="flex gap-2">
              <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
                {tA('admin.users.previous')}
              </Button>
              <Button size="sm" variant="outline" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
                {tA('admin.users.next')}
              </Button>
            </div>
          </nav>
        </>
      )}
      <SuspendDialog user={suspending} onClose={() => setSuspending(null)} />
      <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} />
    </div>
  )
}
